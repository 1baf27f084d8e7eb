/**
 * A raw 2026-07-28-only upstream for tests of the gateway's link to one (src/upstream/modern-link.ts): it
 * refuses `initialize` the way a v2 SDK server with `legacy: 'reject'` does (400, -32022), answers
 * `server/discover`, opens `subscriptions/listen` and lists `tools`; each `tools/call` goes to the test's own
 * `call`. Closed when the test ends (./listen.ts).
 */
import type { ServerResponse } from 'node:http';
import { listen, readBody } from './listen.js';

export const MODERN = '2026-07-28';

/** A tools/call as the upstream received it. */
export interface ModernCall {
  readonly id: string | number;
  readonly name: string;
  /** The request's text as the upstream received it. */
  readonly text: string;
}

export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Start it; returns its MCP endpoint's URL. */
export async function startRawModern(tools: readonly string[], call: (m: ModernCall, res: ServerResponse) => void): Promise<string> {
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(body.toString('utf8')) as { id?: string | number; method: string; params?: { name?: string } };
      if (m.method === 'initialize') return writeJson(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32022, message: 'unsupported', data: { supported: [MODERN] } } });
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'server/discover') {
        const serverInfo = { name: 'raw-modern', version: '1' };
        return writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', supportedVersions: [MODERN], capabilities: { tools: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } } });
      }
      if (m.method === 'subscriptions/listen') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.flushHeaders();
      }
      if (m.method === 'tools/list') {
        return writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })) } });
      }
      if (m.method === 'tools/call') return call({ id: m.id, name: m.params?.name ?? '', text: body.toString('utf8') }, res);
      writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } });
    });
  });
  return `${origin}/mcp`;
}
