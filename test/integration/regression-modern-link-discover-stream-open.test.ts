/**
 * A session client of a 2026-07-28-only upstream has its `initialize` answered from the upstream's
 * `server/discover` (src/upstream/modern-link.ts). The gateway read the discover answer to its end, so an
 * upstream that answered on an event stream and kept it open (closing it after the answer is a SHOULD of the
 * revision's transport) held every initialize until timeoutMs, and the client could never connect. The answer
 * is taken as soon as it comes.
 */
import { expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { MODERN, writeJson } from '../helpers/raw-modern.js';

it('an initialize is answered from a server/discover answer whose event stream the upstream keeps open', async () => {
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      const m = JSON.parse(body.toString('utf8')) as { id?: string | number; method: string };
      if (m.method === 'initialize') return writeJson(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32022, message: 'unsupported', data: { supported: [MODERN] } } });
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'server/discover' || m.method === 'subscriptions/listen') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (m.method === 'server/discover') {
          const result = { resultType: 'complete', supportedVersions: [MODERN], capabilities: { tools: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'open-stream', version: '1' } } };
          res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result })}\n\n`);
        }
        return void res.flushHeaders();
      }
      writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', tools: [{ name: 't', inputSchema: { type: 'object' } }] } });
    });
  });
  // Before, the initialize waited for the discover stream's end, and timed out.
  const gw = await startGateway(gatewayConfig([httpUpstream('modern', `${origin}/mcp`, { timeoutMs: 2000 })]));
  const client = new Client({ name: 'v1', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/modern/mcp'))));
  expect(client.getServerVersion()).toEqual({ name: 'open-stream', version: '1' });
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['t']);
});
