/**
 * How a stdio session's answers are framed (src/http/front/), seen by a raw HTTP client in front of the stdio
 * fixture and server-everything: a client whose revision predates Streamable HTTP's resumable streams
 * (2024-11-05) gets a plain request answered as JSON, or an SSE stream when notifications come before the
 * answer or the call outlasts a keep-alive interval; a client that can resume (2025-03-26, 2025-06-18,
 * 2025-11-25) always gets an SSE stream whose events carry ids (and, for 2025-11-25, a priming event with
 * `retry:`). Requests a strict JSON-RPC reader
 * would refuse get the SDK servers' answers, and the session keeps working after them.
 */
import { describe, expect, it } from 'vitest';
import { EVERYTHING_SERVER, startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

/** The test's gateway, for the helpers below (it closes itself when the test ends). */
let gateway: StdioGateway | undefined;

const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function post(headers: Record<string, string>, message: unknown): Promise<Response> {
  return fetch(gateway!.url, { method: 'POST', headers: { ...BASE, ...headers }, body: JSON.stringify(message) });
}

/** Open a session the way any client does; returns the headers for its later requests. */
async function open(revision = '2024-11-05'): Promise<Record<string, string>> {
  const init = await post({}, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'direct', version: '1' } } });
  expect(init.status).toBe(200);
  await init.text();
  const session = init.headers.get('mcp-session-id');
  expect(session).toBeTruthy();
  const headers: Record<string, string> = { 'mcp-session-id': session!, ...(revision >= '2025-06-18' && { 'mcp-protocol-version': revision }) };
  expect((await post(headers, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return headers;
}

/** The `data:` payloads of an SSE body, parsed. */
function events(text: string): Record<string, unknown>[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      expect(block.startsWith('event: message\ndata: ')).toBe(true);
      return JSON.parse(block.slice('event: message\ndata: '.length)) as Record<string, unknown>;
    });
}

describe('stdio upstream: answers by revision', () => {
  it('answers a plain request of a client that cannot resume as JSON on its own response', async () => {
    // The fixture sends nothing unasked (server-everything announces tools/list_changed after initialize,
    // which goes on the first request's stream, as it did through the SDK transport).
    gateway = await startStdioGateway();
    const headers = await open();
    const res = await post(headers, { jsonrpc: '2.0', id: 'e-1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 'e-1', result: { content: [{ type: 'text', text: 'hi' }] } });
  });

  it('gives 2025-03-26 and 2025-06-18 clients an SSE answer whose events carry ids, and a 2025-11-25 client a priming event first', async () => {
    gateway = await startStdioGateway();
    for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const headers = await open(revision);
      const res = await post(headers, { jsonrpc: '2.0', id: 'r', method: 'tools/call', params: { name: 'echo', arguments: { text: revision } } });
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      const blocks = (await res.text()).split('\n\n').filter((b) => b !== '');
      const answer = blocks.at(-1)!;
      expect(answer).toMatch(/^event: message\nid: \d+-\d+\ndata: /);
      expect(JSON.parse(answer.slice(answer.indexOf('data: ') + 6))).toMatchObject({ id: 'r', result: { content: [{ text: revision }] } });
      if (revision === '2025-11-25') expect(blocks[0]).toMatch(/^id: \d+-0\nretry: \d+\ndata: $/);
      else expect(blocks).toHaveLength(1);
    }
  });

  it('streams notifications that come before the answer, the answer last', async () => {
    gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'] });
    const headers = await open();
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 }, _meta: { progressToken: 'p' } } };
    const res = await post(headers, call);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
    // server-everything may also emit an unrelated notification (tools/list_changed) while the call is the only
    // one in flight; the gateway routes that to the same stream (a stdio server works for its one request).
    const got = events(await res.text()).filter((m) => m.method === undefined || m.method === 'notifications/progress');
    expect(got.map((m) => m.method ?? 'answer')).toEqual(['notifications/progress', 'notifications/progress', 'answer']);
    expect(got[0]).toMatchObject({ params: { progressToken: 'p', progress: 1, total: 2 } });
    expect(got[2]).toMatchObject({ id: 7, result: { content: [{ type: 'text' }] } });
  });

  it('turns a long call into an SSE stream with keep-alive comments', async () => {
    gateway = await startStdioGateway({ stdio: { keepAliveMs: 20 } });
    const headers = await open();
    const [pid] = gateway.routes.pids();
    const res = await post(headers, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'block', arguments: {} } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^: keepalive\n\n/);
    // The child dies: the call's error ends the stream as its last event.
    process.kill(pid!, 'SIGKILL');
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    const last = rest.split('\n\n').filter((b) => b.startsWith('event: message')).pop()!;
    expect(JSON.parse(last.slice('event: message\ndata: '.length))).toMatchObject({ id: 5, error: { code: -32000 } });
  });

  it('refuses what a strict JSON-RPC reader refuses, as the SDK servers do, and the session keeps working', async () => {
    gateway = await startStdioGateway();
    const headers = await open();
    const echo = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } };

    const extraKey = await post(headers, { ...echo, extra: true });
    expect(extraKey.status).toBe(400);
    expect(await extraKey.json()).toMatchObject({ error: { code: -32700, message: expect.stringMatching(/^parse error: invalid JSON-RPC message/), data: { code: 'RETROFIT_ERR_PARSE' } } });

    const version = await post({ ...headers, 'mcp-protocol-version': '1999-01-01' }, echo);
    expect(version.status).toBe(400);
    expect(await version.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining('unsupported protocol version: 1999-01-01'), data: { code: 'RETROFIT_ERR_PROTOCOL_VERSION_HEADER' } } });

    const accept = await post({ ...headers, accept: 'application/json' }, echo);
    expect(accept.status).toBe(406);
    await accept.text();

    const fractionalId = await post(headers, { ...echo, id: 1.5 });
    expect(fractionalId.status).toBe(400);
    await fractionalId.text();

    const ok = await post(headers, echo);
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(await ok.json()).toMatchObject({ id: 1, result: { content: [{ text: 'x' }] } });
  });
});
