/**
 * Regression: on a gateway-held session, the POST carrying a request sent nothing at all — no status line, no
 * headers, no priming event — until the child's first message for it: a slow tool kept a client (or a proxy
 * with a header timeout) waiting for headers, and a 2025-11-25 client whose connection dropped meanwhile had no
 * event id to resume from. Now a resumable answer stream (2025-03-26 and later) sends its headers, and for
 * 2025-11-25 its priming event (an id, `retry:`, empty data), as soon as it is opened; the answer follows on
 * it when the child sends it. A 2024-11-05 client still gets a JSON body when the answer comes first. Each
 * test's own timeout is far below the child's wait: before the fix, the headers never came and they time out.
 */
import { describe, expect, it } from 'vitest';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { ACCEPT_BOTH, messagesOf, post } from '../hostile/harness.js';

// `slow` is answered only when `release` comes; anything else at once. Initialize echoes the client's revision.
const CHILD = rawChild(
  `(m, out) => {
    const shape = m.params.arguments.shape;
    if (shape === 'slow') { globalThis.held = m.id; return; }
    if (shape === 'release') out({ jsonrpc: '2.0', id: globalThis.held, result: { content: [{ type: 'text', text: 'slow answer' }] } });
    out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: shape }] } });
  }`,
  `(m, out) => out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } })`,
);

const call = (id: string, shape: string): object => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'act', arguments: { shape } } });

async function openSession(url: string, revision: string): Promise<Record<string, string>> {
  const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'slow', version: '1' } } });
  const session = init.headers.get('mcp-session-id')!;
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': revision };
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  return headers;
}

/** Reads an SSE body event by event (each with its blank line). */
function eventsOf(body: ReadableStream<Uint8Array>): () => Promise<string | undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  return async () => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end !== -1) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        return event;
      }
      const { value, done } = await reader.read();
      if (done) return undefined;
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

describe('regression: a slow answer on a stdio session', () => {
  it.each([
    ['2025-11-25', true],
    ['2025-06-18', false],
  ])('gets a %s client its headers at once (priming event: %s), the answer later on the same stream', { timeout: 10_000 }, async (revision, priming) => {
    const gateway = await startStdioGateway({ args: rawArgs(CHILD), upstream: { timeoutMs: 60_000 } });
    const headers = await openSession(gateway.url, revision);
    // fetch resolves with the headers: before the fix, only once `release` had made the child answer.
    const res = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body: JSON.stringify(call('s', 'slow')) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
    const next = eventsOf(res.body!);
    if (priming) expect(await next()).toMatch(/^id: \d+-0\nretry: 1000\ndata: ?$/);

    const released = await post(gateway.url, call('r', 'release'), headers);
    expect(released.messages).toMatchObject([{ id: 'r', result: { content: [{ text: 'release' }] } }]);
    const answer = (await next())!;
    expect(answer).toMatch(/(^|\n)id: \d+-\d+\n/);
    expect(messagesOf(`${answer}\n\n`, 'text/event-stream')).toMatchObject([{ id: 's', result: { content: [{ text: 'slow answer' }] } }]);
    expect(await next()).toBeUndefined();
  });

  it('still answers a 2024-11-05 client with a JSON body when the answer is the first message', async () => {
    const gateway = await startStdioGateway({ args: rawArgs(CHILD) });
    const headers = await openSession(gateway.url, '2024-11-05');
    const answer = await post(gateway.url, call('f', 'fast'), headers);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.messages).toMatchObject([{ id: 'f', result: { content: [{ text: 'fast' }] } }]);
  });
});
