import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

describe("a session's revision comes from its InitializeResult", () => {
  it('governs later requests without a header, and is forgotten on DELETE and on a 404 for the session', async () => {
    const live = new Set<string>();
    let next = 0;
    const upstream = await listen((req, res) => {
      void readBody(req).then((body) => {
        const sid = req.headers['mcp-session-id'] as string | undefined;
        if (req.method === 'DELETE') {
          if (sid) live.delete(sid);
          res.writeHead(200).end();
          return;
        }
        const msg = JSON.parse(body.toString()) as { id: number; method: string };
        if (msg.method === 'initialize') {
          const id = `s${++next}`;
          live.add(id);
          // SSE answer: the gateway must read the InitializeResult out of an event.
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': id });
          res.end(`id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'u', version: '1' } } })}\n\n`);
          return;
        }
        if (!sid || !live.has(sid)) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } }));
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`)]));
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(gw.url('/up/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, session: r.headers.get('mcp-session-id'), body: await r.text() }));
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

    const first = await post(initialize);
    expect(first.session).toBe('s1');
    await post(list, { 'mcp-session-id': 's1' });
    await post(list, { 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-11-25' });
    await post({ ...list, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }, { 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-11-25' });
    live.delete('s1'); // the upstream expires the session
    expect((await post(list, { 'mcp-session-id': 's1' })).status).toBe(404);
    await post(list, { 'mcp-session-id': 's1' });

    expect((await post(initialize)).session).toBe('s2');
    await post(list, { 'mcp-session-id': 's2' });
    expect((await fetch(gw.url('/up/mcp'), { method: 'DELETE', headers: { 'mcp-session-id': 's2' } })).status).toBe(200);
    await post(list, { 'mcp-session-id': 's2' });

    // The initialize itself is governed by the default (no session revision yet); its line says what was asked.
    const inits = requestLines(gw.logs).filter((l) => l.method === 'initialize');
    expect(inits.map((l) => [l.revision, l.revisionSource, l.requested])).toEqual([
      ['2025-03-26', 'default', '2025-11-25'],
      ['2025-03-26', 'default', '2025-11-25'],
    ]);
    expect(requestLines(gw.logs).filter((l) => l.method !== 'initialize' && 'requested' in l)).toEqual([]);
    const lists = requestLines(gw.logs).filter((l) => l.method === 'tools/list');
    expect(lists.map((l) => [l.session, l.revision, l.revisionSource, l.status])).toEqual([
      ['s1', '2025-06-18', 'session', 200],
      ['s1', '2025-11-25', 'header', 200],
      ['s1', '2026-07-28', 'meta', 200],
      ['s1', '2025-06-18', 'session', 404],
      ['s1', '2025-03-26', 'default', 404],
      ['s2', '2025-06-18', 'session', 200],
      ['s2', '2025-03-26', 'default', 404],
    ]);
    expect(await gw.metrics.registry.getSingleMetricAsString('mcp_retrofit_active_sessions')).toContain('mcp_retrofit_active_sessions{upstream="up"} 0');
  });
});
