/**
 * A session client's call to a 2026-07-28-only upstream (src/upstream/modern-link.ts) whose answer comes on an
 * event stream the upstream keeps open after it: the gateway delivered the answer and left the stream to the
 * upstream, so each call left a connection open for as long as the upstream liked (50 calls, 50 connections,
 * still open after the client left). The answer closes its call's streams.
 */
import { expect, it, onTestFinished, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startRawModern } from '../helpers/raw-modern.js';

it('the answer of a call closes the event stream the upstream keeps open after it', async () => {
  let open = 0;
  const upstream = await startRawModern(['t'], (m, res) => {
    open += 1;
    res.once('close', () => (open -= 1));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] } })}\n\n`);
  });
  const gw = await startGateway(gatewayConfig([httpUpstream('modern', upstream)]));
  const client = new Client({ name: 'v1', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/modern/mcp'))));
  for (let i = 0; i < 5; i++) expect((await client.callTool({ name: 't', arguments: {} })).content).toEqual([{ type: 'text', text: 'ok' }]);
  await vi.waitFor(() => expect(open).toBe(0), { timeout: 3000 });
});
