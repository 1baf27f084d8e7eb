/**
 * A 2026-07-28 request that finds every pooled session busy waits in line (src/session/pool.ts, at most
 * MAX_WAITERS). A client that closed its POST while waiting kept its place until its deadline (timeoutMs), so
 * MAX_WAITERS clients that came and went left the line full of nobody: every later request got 503
 * RETROFIT_ERR_UPSTREAM_BUSY at once, and each of them was later lent a session (a child started) for nobody.
 * A client that leaves now leaves the line.
 */
import { expect, it } from 'vitest';
import { STATELESS_DEFAULTS } from '../../src/config/types.js';
import { MAX_WAITERS } from '../../src/session/pool.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

function call(url: string, name: string, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { text: name }, _meta: META } }),
    ...(signal && { signal }),
  });
}

it('clients that leave the line for a pooled session leave their places to the next', async () => {
  const gateway = await startStdioGateway({ upstream: { stateless: { ...STATELESS_DEFAULTS, poolSize: 1 } } });
  const counts = (): Record<string, number> => gateway.routes.counts!();
  // The one session, started, is then busy with a call that never ends by itself.
  expect((await call(gateway.url, 'echo')).status).toBe(200);
  const blocker = new AbortController();
  const blocked = call(gateway.url, 'block', blocker.signal).catch(() => 'aborted');
  await expect.poll(() => counts().pooledBusy).toBe(1);
  const gone = new AbortController();
  const leaving = Array.from({ length: MAX_WAITERS }, () => call(gateway.url, 'echo', gone.signal).catch(() => 'aborted'));
  await expect.poll(() => counts().poolWaiting, { timeout: 20_000 }).toBe(MAX_WAITERS);
  gone.abort();
  await Promise.all(leaving);
  await expect.poll(() => counts().poolWaiting, { timeout: 5_000 }).toBe(0);
  // The next request waits in line (not a 503), and gets the session once the blocked call is cancelled.
  const next = call(gateway.url, 'echo');
  await expect.poll(() => counts().poolWaiting).toBe(1);
  blocker.abort();
  expect(await blocked).toBe('aborted');
  const answered = await next;
  expect(answered.status).toBe(200);
  expect(((await answered.json()) as { result: { content: unknown } }).result.content).toEqual([{ type: 'text', text: 'echo' }]);
});
