/**
 * Regression: in front of a legacy HTTP+SSE upstream, every message of a client's batch is its own POST to
 * the upstream's endpoint, and those POSTs went through undici's global dispatcher, which has no connection
 * cap: a batch of a thousand requests opened a thousand sockets to the upstream at once (the fault suite's
 * pending-flood counted 1,621 TCP handles in the gateway, and the upstream's accept backlog overflowed).
 * Now each link POSTs through its own pool of at most POST_CONNECTIONS connections, closed with the session.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { POST_CONNECTIONS } from '../../src/upstream/sse-link.js';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { post } from '../hostile/harness.js';

const BATCH = 300;
const REVISION = '2025-03-26';

describe('regression: a batch through a legacy SSE upstream', () => {
  it(`holds at most ${POST_CONNECTIONS} POST connections to the upstream, and every request is answered`, async () => {
    let stream: ServerResponse | undefined;
    let open = 0;
    let peak = 0;
    const up = await listen((req, res) => {
      if (req.method === 'GET') {
        stream = res;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: /messages?s=1\n\n');
        return;
      }
      void readBody(req).then((body) => {
        const m = JSON.parse(body.toString()) as { id?: string | number; method: string };
        // The upstream takes a moment over each POST, as a real one does: long enough for POSTs to pile up.
        setTimeout(() => {
          res.writeHead(202).end('Accepted');
          if (m.id === undefined) return;
          const result = m.method === 'initialize' ? { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'legacy', version: '1' } } : {};
          stream?.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result })}\n\n`);
        }, 2);
      });
    });
    up.server.on('connection', (socket) => {
      open += 1;
      peak = Math.max(peak, open);
      socket.once('close', () => (open -= 1));
    });
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', `${up.origin}/sse`, { timeoutMs: 10_000 })]));
    const url = gw.url('/legacy/mcp');

    const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'batch', version: '1' } } });
    const session = init.headers.get('mcp-session-id')!;
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': REVISION };
    expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);

    const batch = Array.from({ length: BATCH }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));
    const answer = await post(url, batch, headers);
    expect(answer.status).toBe(200);
    expect(new Set(answer.messages.map((m) => m.id))).toEqual(new Set(batch.map((m) => m.id)));
    expect(answer.messages.every((m) => 'result' in m)).toBe(true);
    // The event stream's connection, and the link's POST pool.
    expect(peak).toBeLessThanOrEqual(1 + POST_CONNECTIONS);
  });
});
