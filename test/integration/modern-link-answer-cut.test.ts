/**
 * A session-era client in front of a 2026-07-28-only upstream (src/upstream/modern-link.ts) whose answer stream
 * breaks: cut mid-event, reset before any event, or ended cleanly without the call's result. The client's
 * request gets its JSON-RPC error at once (UPSTREAM_RESET for a break, UPSTREAM_PROTOCOL for an answer that
 * ended without a result), never at timeoutMs, and the session goes on serving.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';

const MODERN = '2026-07-28';
let upstream: Server;
let url = '';

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string | number; method: string; params?: { name?: string } };
      // Session revisions are refused the way a v2 SDK server with `legacy: 'reject'` refuses them.
      if (m.method === 'initialize') return json(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32022, message: 'unsupported', data: { supported: [MODERN] } } });
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'server/discover') {
        return json(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', supportedVersions: [MODERN], capabilities: { tools: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-cut', version: '1' } } } });
      }
      if (m.method === 'subscriptions/listen') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        return;
      }
      if (m.method === 'tools/call') {
        const name = m.params?.name;
        if (name === 'cut') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('event: message\ndata: {"jsonrpc":"2.0","id":');
          return void setImmediate(() => res.destroy());
        }
        if (name === 'reset') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.flushHeaders();
          return void setImmediate(() => res.destroy());
        }
        if (name === 'nothing') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return void res.end(': nothing here\n\n');
        }
        return json(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'fine' }] } });
      }
      json(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } });
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

describe('a 2026-07-28-only upstream whose answer stream breaks', () => {
  it('answers the call at once (not at timeoutMs) and the session goes on', async () => {
    // timeoutMs is 20 s and the client waits 30 s: an answer at the deadline would be UPSTREAM_TIMEOUT, so the
    // codes below say each answer came from the break itself (no clock is read here).
    const gw = await startGateway(gatewayConfig([httpUpstream('modern', url, { timeoutMs: 20_000 })]));
    const client = new Client({ name: 'v1', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/modern/mcp'))));
    onTestFinished(() => client.close());
    const failure = async (name: string): Promise<string | undefined> => {
      try {
        await client.callTool({ name, arguments: {} }, undefined, { timeout: 30_000 });
        return undefined;
      } catch (err) {
        return (err as { data?: { code?: string } }).data?.code;
      }
    };
    for (const [name, code] of [['cut', 'RETROFIT_ERR_UPSTREAM_RESET'], ['reset', 'RETROFIT_ERR_UPSTREAM_RESET'], ['nothing', 'RETROFIT_ERR_UPSTREAM_PROTOCOL']] as const) {
      expect(await failure(name), name).toBe(code);
    }
    const fine = await client.callTool({ name: 'fine', arguments: {} });
    expect(fine.content).toEqual([{ type: 'text', text: 'fine' }]);
  });
});
