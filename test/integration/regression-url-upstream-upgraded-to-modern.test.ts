/**
 * A `url:` upstream found to speak only session revisions, whose 2026-07-28 clients the gateway serves on pooled
 * sessions (src/http/front/url-modern.ts), that is then upgraded to serve only 2026-07-28: its pooled sessions are
 * gone (404) and every new one's initialize is refused (400, -32022, `supported: ["2026-07-28"]`). The gateway
 * kept what it had learnt until a reload, so every 2026-07-28 request got that refusal (502, -32022 "unsupported
 * protocol version" — to a client of the very revision it names) for as long as the process ran. Now such a
 * refusal makes the gateway ask again, and the request goes to the upstream, which serves it itself.
 */
import { expect, it, vi } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { writeJson } from '../helpers/raw-modern.js';

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** An upstream that speaks session revisions only, until `upgraded`: then 2026-07-28 only. */
async function upgradable(): Promise<{ url: string; upgrade(): void }> {
  let upgraded = false;
  let sessions = 0;
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(body.toString('utf8')) as { id?: string | number; method: string };
      if (m.id === undefined) return void res.writeHead(202).end();
      const session = req.headers['mcp-session-id'];
      if (!upgraded) {
        if (m.method === 'initialize') {
          res.setHeader('mcp-session-id', `s${(sessions += 1)}`);
          return writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'old', version: '1' } } });
        }
        if (session === undefined) return writeJson(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32000, message: 'Bad Request: Server not initialized' } });
        return writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'old', inputSchema: { type: 'object' } }] } });
      }
      if (m.method === 'initialize') return writeJson(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN] } } });
      if (session !== undefined) return writeJson(res, 404, { jsonrpc: '2.0', id: m.id, error: { code: -32001, message: 'Session not found' } });
      if (m.method === 'server/discover') return writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', supportedVersions: [MODERN], capabilities: { tools: {} } } });
      return writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', tools: [{ name: 'new', inputSchema: { type: 'object' } }] } });
    });
  });
  return { url: `${origin}/mcp`, upgrade: () => (upgraded = true) };
}

it('a url upstream upgraded to serve only 2026-07-28 serves its 2026-07-28 clients itself, without a reload', async () => {
  const upstream = await upgradable();
  const gw = await startGateway(gatewayConfig([httpUpstream('up', upstream.url)]));
  const list = async (id: number): Promise<{ status: number; body: { result?: { tools: { name: string }[] }; error?: unknown } }> => {
    const res = await fetch(gw.url('/up/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: META } }),
    });
    return { status: res.status, body: (await res.json()) as { result?: { tools: { name: string }[] } } };
  };
  // Served on a pooled session.
  expect((await list(1)).body.result?.tools.map((t) => t.name)).toEqual(['old']);
  upstream.upgrade();
  // The pooled session is gone, a new one is refused: the request goes to the upstream itself.
  const first = await list(2);
  expect(first).toMatchObject({ status: 200, body: { result: { tools: [{ name: 'new' }] } } });
  expect((await list(3)).body.result?.tools.map((t) => t.name)).toEqual(['new']);
  // One log line per exchange, the handed-over one's the proxy's.
  await vi.waitFor(() => expect(requestLines(gw.logs)).toHaveLength(3));
  expect(requestLines(gw.logs).map((l) => l.status)).toEqual([200, 200, 200]);
});
