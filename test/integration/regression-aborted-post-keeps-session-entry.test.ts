/**
 * Regression (found by `npm run faults`, kind client-vanish on the http target: one leak check of 156 in the
 * 20,000-session run of 2026-12-07 read `proxiedSessions 1`): a proxied session's POST that the gateway first
 * read after the client had gone — its DELETE overtook it — made the session's entry again, and nothing forgot
 * it (no DELETE was to come; the LRU bound only evicts it after 10,000 others). Now an entry made by an exchange
 * whose client left is dropped with it, unless another request of the session awaits its answer there.
 */
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

/** Answers `hold` calls only when their request goes away; anything else at once. */
async function holdingUpstream(): Promise<{ url: string; held: () => number; released: () => number }> {
  let held = 0;
  let released = 0;
  const up = await listen((req, res) => {
    void readBody(req).then((body) => {
      const m = JSON.parse(body.toString()) as { id: number; params?: { name?: string } };
      if (m.params?.name === 'hold') {
        held += 1;
        res.on('close', () => (released += 1));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'hi' }] } }));
    });
  });
  return { url: `${up.origin}/mcp`, held: () => held, released: () => released };
}

async function activeSessions(gw: TestGateway): Promise<number> {
  const { values } = await gw.metrics.sessions.get();
  return values.find((v) => v.labels.upstream === 'u')?.value ?? 0;
}

function call(gw: TestGateway, session: string, name: string, signal?: AbortSignal) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
  return request(gw.url('/u/mcp'), { method: 'POST', body, signal, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } });
}

describe('regression: a proxied POST whose client left', () => {
  it('leaves no entry for a session it was the first to name; a completed one keeps it', async () => {
    const up = await holdingUpstream();
    const gw = await startGateway(gatewayConfig([httpUpstream('u', up.url)]));

    // The client leaves while the upstream holds its call: the gateway aborts it upstream.
    const leaving = new AbortController();
    const pending = call(gw, 'gone-session', 'hold', leaving.signal).catch((err: unknown) => err);
    await vi.waitFor(() => expect(up.held()).toBe(1));
    expect(await activeSessions(gw)).toBe(1);
    leaving.abort();
    await pending;
    await vi.waitFor(() => expect(up.released()).toBe(1));
    await vi.waitFor(async () => expect(await activeSessions(gw)).toBe(0));
    const line = gw.logs.find((l) => l.msg === 'request' && l.session === 'gone-session');
    expect(line?.outcome).toBe('aborted');

    // A call that completes: its session is remembered (what the gateway learnt of it is kept).
    const done = await call(gw, 'kept-session', 'echo');
    await done.body.dump();
    expect(done.statusCode).toBe(200);
    expect(await activeSessions(gw)).toBe(1);
  });

  it('keeps an entry another request of the session still awaits', async () => {
    const up = await holdingUpstream();
    const gw = await startGateway(gatewayConfig([httpUpstream('u', up.url)]));
    const first = new AbortController();
    const second = new AbortController();
    const a = call(gw, 'busy-session', 'hold', first.signal).catch((err: unknown) => err);
    await vi.waitFor(() => expect(up.held()).toBe(1));
    const b = call(gw, 'busy-session', 'hold', second.signal).catch((err: unknown) => err);
    await vi.waitFor(() => expect(up.held()).toBe(2));
    // The first made the entry; it leaves while the second still awaits there.
    first.abort();
    await a;
    await vi.waitFor(() => expect(up.released()).toBe(1));
    expect(await activeSessions(gw)).toBe(1);
    second.abort();
    await b;
    await vi.waitFor(() => expect(up.released()).toBe(2));
    expect(await activeSessions(gw)).toBe(1);
  });
});
