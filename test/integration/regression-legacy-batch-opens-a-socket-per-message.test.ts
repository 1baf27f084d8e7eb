/**
 * Regression: in front of a legacy HTTP+SSE upstream, every message of a client's batch is its own POST to
 * the upstream's endpoint, and those POSTs went through undici's global dispatcher, which has no connection
 * cap: a batch of a thousand requests opened a thousand sockets to the upstream at once (the fault suite's
 * pending-flood counted 1,621 TCP handles in the gateway, and the upstream's accept backlog overflowed).
 * Now each link POSTs through its own pool of at most POST_CONNECTIONS connections, closed with the session.
 * A request's deadline (timeoutMs) runs from when the client sent it, not from when its POST was taken: a
 * request queued behind slow POSTs is answered at its deadline like any other (checked here too; the timer
 * used to be armed when a send settled).
 */
import { describe, expect, it } from 'vitest';
import { POST_CONNECTIONS } from '../../src/upstream/sse-link.js';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { rawLegacyUpstream, type LegacyMessage } from '../helpers/raw-legacy.js';
import { post } from '../hostile/harness.js';

const BATCH = 300;
const REVISION = '2025-03-26';

/** Open a 2025-03-26 session on the gateway's front; returns the headers for the session's requests. */
async function open(url: string): Promise<Record<string, string>> {
  const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'batch', version: '1' } } });
  const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': REVISION };
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  return headers;
}

describe('regression: a batch through a legacy SSE upstream', () => {
  it(`holds at most ${POST_CONNECTIONS} POST connections to the upstream, and every request is answered`, async () => {
    let sockets = 0;
    let peak = 0;
    const up = await rawLegacyUpstream((body, res) => {
      const m = body as LegacyMessage;
      // The upstream takes a moment over each POST, as a real one does: long enough for POSTs to pile up.
      setTimeout(() => {
        res.writeHead(202).end('Accepted');
        if (m.id === undefined) return;
        if (m.method === 'initialize') return up.initialized(m.id);
        up.event(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
      }, 2);
    });
    up.server.on('connection', (socket) => {
      sockets += 1;
      peak = Math.max(peak, sockets);
      socket.once('close', () => (sockets -= 1));
    });
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', up.url, { timeoutMs: 10_000 })]));
    const url = gw.url('/legacy/mcp');

    const headers = await open(url);

    const batch = Array.from({ length: BATCH }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));
    const answer = await post(url, batch, headers);
    expect(answer.status).toBe(200);
    expect(new Set(answer.messages.map((m) => m.id))).toEqual(new Set(batch.map((m) => m.id)));
    expect(answer.messages.every((m) => 'result' in m)).toBe(true);
    // The event stream's connection, and the link's POST pool.
    expect(peak).toBeLessThanOrEqual(1 + POST_CONNECTIONS);
  });

  it('answers requests queued behind slow POSTs at their deadline, not after the queue drains', async () => {
    const TIMEOUT_MS = 1_000;
    const up = await rawLegacyUpstream((body, res, legacy) => {
      const m = body as LegacyMessage;
      if (m.method === 'initialize') {
        res.writeHead(202).end();
        return legacy.initialized(m.id, 'slow');
      }
      // Every other POST is taken slowly (within the gateway's timeout, so no POST fails) and never answered.
      if (m.id !== undefined) setTimeout(() => res.writeHead(202).end(), TIMEOUT_MS * 0.9);
      else res.writeHead(202).end();
    });
    const gw = await startGateway(gatewayConfig([sseUpstream('slow', up.url, { timeoutMs: TIMEOUT_MS })]));
    const url = gw.url('/slow/mcp');
    const headers = await open(url);

    // 10 rounds of POSTs at 0.9 s each: drained after 9 s. Each request's deadline is 1 s after it was sent.
    const batch = Array.from({ length: POST_CONNECTIONS * 10 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));
    const answer = await post(url, batch, headers, AbortSignal.timeout(TIMEOUT_MS * 4));
    expect(answer.messages).toHaveLength(batch.length);
    expect(answer.messages.every((m) => (m.error as { data?: { code?: string } } | undefined)?.data?.code === 'RETROFIT_ERR_UPSTREAM_TIMEOUT')).toBe(true);
  });
});
