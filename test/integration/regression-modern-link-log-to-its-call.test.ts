/**
 * Regression (found by `npm run faults`, kind backed-up-vanish on the modern target, seed 603652242): in a
 * session the gateway holds for an older client in front of a 2026-07-28-only upstream, a log message on a
 * call's answer stream reached that call's stream only when the call had a progress token or was the only one
 * in flight; with another call in flight it went to the session's GET stream (or nowhere, without one). The link
 * knows the call it came with and now says so (LinkFrame.related): the message goes on that call's stream.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startRawModern, writeJson, type ModernCall } from '../helpers/raw-modern.js';

describe('regression: a 2026-07-28 upstream\'s log message on a call\'s answer stream, another call in flight', () => {
  it('reaches the POST stream of the call it came with, before its answer', async () => {
    let slowArrived!: (res: ServerResponse) => void;
    const held = new Promise<ServerResponse>((resolve) => (slowArrived = resolve));
    const up = await startRawModern(['slow', 'logged'], (m: ModernCall, res) => {
      if (m.name === 'slow') return slowArrived(res);
      const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'on my stream' } };
      const done = { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }] } };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: message\ndata: ${JSON.stringify(log)}\n\nevent: message\ndata: ${JSON.stringify(done)}\n\n`);
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('modern', up)]));
    const url = gw.url('/modern/mcp');
    const revision = '2025-06-18';
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision };
    const init = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')! };
    await init.text();
    await (await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();

    const call = (id: number, name: string) => fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }) });
    const slow = call(2, 'slow');
    const upstreamSlow = await held;
    const logged = await (await call(3, 'logged')).text();
    const messages = logged.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'on my stream' } },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
    writeJson(upstreamSlow, 200, { jsonrpc: '2.0', id: 'x', result: { resultType: 'complete', content: [] } });
    await (await slow).text();
  });
});
