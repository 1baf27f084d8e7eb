/**
 * Regression: a gateway-owned session keeps at most 1000 requests in flight (the pending table evicts the
 * oldest), but the evicted entry stayed in share mode's in-flight table and its client's POST stream waited
 * for ever — the evicted request no longer had a deadline either. Now an entry that leaves the pending table
 * unanswered is removed from every table that holds it (the child is sent notifications/cancelled for it,
 * which share mode's id table also forgets it by) and its client gets RETROFIT_ERR_UPSTREAM_BUSY on its
 * stream at once. Owned sessions and share mode alike.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { RAW_INIT_RESULT, rawArgs } from '../helpers/raw-child.js';
import { ACCEPT_BOTH, echoCall, echoed, openSession, post, sessionHeaders } from './harness.js';

const HELD = 1001;
// Answers initialize and `echo` (one message or a batch); `hold` is never answered (the 1000th is told on
// stderr); a cancellation is told on stderr.
const child = `
  const out = (v) => process.stdout.write(JSON.stringify(v) + '\\n');
  let held = 0;
  require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
    const parsed = JSON.parse(line);
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      if (m.method === 'notifications/cancelled') process.stderr.write('cancelled ' + JSON.stringify(m.params.requestId) + '\\n');
      if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(RAW_INIT_RESULT)} });
      if (m.method === 'tools/call' && m.params.name === 'echo') out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params.arguments.text }] } });
      if (m.method === 'tools/call' && m.params.name === 'hold' && ++held === 1000) process.stderr.write('held 1000\\n');
    }
  });`;

/** Reads an SSE response until `found` says so; the events seen so far. */
async function readUntil(res: Response, found: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const data = buffer.slice(0, end).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
      buffer = buffer.slice(end + 2);
      if (data === '') continue;
      const message = JSON.parse(data) as Record<string, unknown>;
      if (found(message)) return message;
    }
  }
  throw new Error('the stream ended without the answer');
}

describe.each([
  ['an owned session', false],
  ['share mode', true],
])('regression: a request evicted from the pending table, %s', (_label, share) => {
  it('is answered with UPSTREAM_BUSY at once, cancelled at the child, and forgotten everywhere', async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), upstream: { share, timeoutMs: 120_000 }, stdio: { killTimeoutMs: 1_000 }, shutdownGraceMs: 0 });
    const session = await openSession(gateway.url);
    const h = sessionHeaders(session);
    // A batch of 1000 requests the child holds (the most one batch may have), then one more on its own POST:
    // the first is evicted as the last registers.
    const hold = (i: number) => ({ jsonrpc: '2.0', id: `h${i}`, method: 'tools/call', params: { name: 'hold', arguments: {} } });
    const gone = new AbortController();
    const send = (body: unknown) => fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...h }, body: JSON.stringify(body), signal: gone.signal });
    // (Neither answer's headers come before its first event.)
    const first = send(Array.from({ length: HELD - 1 }, (_, i) => hold(i)));
    await gateway.waitForLog((l) => l.line === 'held 1000');
    const last = send(hold(HELD - 1)).catch(() => undefined);
    const res = await first;
    const evicted = await readUntil(res, (m) => m.id === 'h0');
    expect(evicted).toEqual({
      jsonrpc: '2.0',
      id: 'h0',
      error: { code: -32000, message: 'upstream "fixture" is busy: more requests in flight in this session than the gateway keeps; request "h0" was evicted', data: { code: 'RETROFIT_ERR_UPSTREAM_BUSY' } },
    });
    const wire = share ? '"1~\\"h0\\""' : '"h0"';
    await gateway.waitForLog((l) => l.line === `cancelled ${wire}`);
    expect(gateway.logs.find((l) => l.msg === 'request dropped from the pending table unanswered; the client gets an error')).toMatchObject({ id: 'h0', why: 'evicted' });
    // The session goes on (each new request evicts the next oldest held one).
    expect(echoed((await post(gateway.url, echoCall('e', 'still here'), h)).messages.find((m) => m.id === 'e'))).toBe('still here');
    await res.body?.cancel();
    gone.abort();
    await last;
  });
});
