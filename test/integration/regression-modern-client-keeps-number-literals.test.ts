/**
 * A 2026-07-28 client in front of an upstream of session revisions gets each answer as a complete result
 * (src/http/front/modern-exchange.ts: `resultType`, the server's identity in `_meta`): the upstream's answer was
 * parsed with JSON.parse and written again with JSON.stringify, so every number literal a double cannot hold
 * went out rounded (`"_meta": {"n": 12345678901234567890}` as 12345678901234567000), in results and errors alike.
 * A raw upstream writes such literals by hand; a raw 2026-07-28 client reads the gateway's bytes.
 */
import { expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

const MODERN = '2026-07-28';
const META = '{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}';
const STRUCTURED = '{"v":9007199254740993,"big":1e400}';

/** What the raw upstream answers each method with (JSON text written by hand: no serialiser rounds it). */
function answerFor(method: string, tool: string | undefined): string {
  if (method === 'initialize') return '"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"literals","version":"1"}}';
  if (method === 'tools/list') return '"result":{"tools":[{"name":"small","inputSchema":{"type":"object"}},{"name":"fails","inputSchema":{"type":"object"}}]}';
  // A server of session revisions: the gateway serves 2026-07-28 for it.
  if (method === 'server/discover') return '"error":{"code":-32601,"message":"Method not found"}';
  if (method !== 'tools/call') return '"result":{}';
  if (tool === 'fails') return `"error":{"code":-32000,"message":"no","data":${META}}`;
  return `"result":{"content":[{"type":"text","text":"done"}],"structuredContent":${STRUCTURED},"total":18446744073709551617,"_meta":${META}}`;
}

async function literalUpstream(): Promise<string> {
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(body.toString('utf8')) as { id?: number | string; method: string; params?: { name?: string } };
      if (m.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},${answerFor(m.method, m.params?.name)}}`);
    });
  });
  return `${origin}/mcp`;
}

it('an answer to a 2026-07-28 client from an upstream of session revisions keeps its number literals, byte for byte', async () => {
  const gw = await startGateway(gatewayConfig([httpUpstream('up', await literalUpstream())]));
  const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
  const call = async (name: string): Promise<string> => {
    const res = await fetch(gw.url('/up/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: meta } }),
    });
    return res.text();
  };

  const done = await call('small');
  // A complete result of this revision, the server named in its _meta.
  expect(done).toContain('"resultType":"complete"');
  expect(done).toContain('"io.modelcontextprotocol/serverInfo"');
  expect(done).toContain(`"structuredContent":${STRUCTURED}`);
  expect(done).toContain('"total":18446744073709551617');
  expect(done).toContain(`"_meta":${META.slice(0, -1)},`);

  expect(await call('fails')).toContain(`"data":${META}`);
});
