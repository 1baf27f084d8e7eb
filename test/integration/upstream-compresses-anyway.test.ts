/**
 * An upstream that compresses its answers although every request asks `Accept-Encoding: identity` (a CDN or a
 * server that ignores the header). Its bodies are decoded as they stream (gzip, br, zstd; JSON and SSE), so the
 * retrofit works as for any upstream and what reaches the client carries no coding it did not ask for; on the
 * session paths a 2026-07-28 client is served through (server/discover, pooled sessions) too. A body that does not
 * decode is the upstream's protocol failure (502), and a compression bomb is bounded like any answer that
 * must be rewritten (maxResultBytes), never inflated whole.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { brotliCompressSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const WEATHER = { city: 'Paris', temperature: 17 };
const SCHEMA: JsonObject = { type: 'object', properties: { city: { type: 'string' }, temperature: { type: 'number' } }, required: ['city', 'temperature'] };
const MODES = ['gzip', 'br', 'zstd', 'ssegzip', 'corrupt', 'bomb'] as const;
type Mode = (typeof MODES)[number];
// 64 MiB of JSON text in ~64 KiB of gzip: past the gateway's 16 MiB bound on an answer it must rewrite.
const BOMB = gzipSync(JSON.stringify({ jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'a'.repeat(64 * 1024 * 1024) }] } }));

function answerOf(m: { id?: unknown; method?: string; params?: { protocolVersion?: string } }): object {
  const result =
    m.method === 'initialize'
      ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'compressing', version: '1' } }
      : m.method === 'tools/list'
        ? { tools: [{ name: 'weather', inputSchema: { type: 'object' } }] }
        : m.method === 'tools/call'
          ? { content: [{ type: 'text', text: JSON.stringify(WEATHER) }] }
          : m.method === 'ping'
            ? {}
            : undefined;
  return result ? { jsonrpc: '2.0', id: m.id, result } : { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `no ${String(m.method)}` } };
}

let upstream: Server;
let port = 0;
let gateway: TestGateway;

/** A gateway in front of every mode of the upstream, for this test. */
async function start(): Promise<void> {
  gateway = await startGateway(gatewayConfig(MODES.map((mode) => httpUpstream(mode, `http://127.0.0.1:${port}/${mode}/mcp`, { tools: { weather: { outputSchema: SCHEMA } } }))));
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const mode = (req.url ?? '').split('/')[1] as Mode;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method?: string };
      if (m.id === undefined) return void res.writeHead(202).end();
      let text = JSON.stringify(answerOf(m));
      let type = 'application/json';
      if (mode === 'ssegzip') {
        text = `event: message\ndata: ${text}\n\n`;
        type = 'text/event-stream';
      }
      const coded = mode === 'br' ? brotliCompressSync(text) : mode === 'zstd' ? zstdCompressSync(text) : mode === 'corrupt' && m.method === 'tools/call' ? Buffer.from('this was never gzip') : mode === 'bomb' && m.method === 'tools/call' ? BOMB : gzipSync(text);
      res.writeHead(200, { 'content-type': type, 'content-encoding': mode === 'br' ? 'br' : mode === 'zstd' ? 'zstd' : 'gzip', 'content-length': coded.length });
      res.end(coded);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as { port: number }).port;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

async function call(mode: Mode, method: string, params: object = {}): Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }> {
  // node:http, not fetch: fetch would decode a coded answer itself and hide what the gateway sent.
  return new Promise((resolve, reject) => {
    const req = httpRequest(gateway.url(`/${mode}/mcp`), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const json = text.startsWith('{') ? text : (text.split('\n').find((l) => l.startsWith('data: '))?.slice(6) ?? '{}');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(json) as Record<string, unknown> });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }));
  });
}

describe('an upstream that compresses against Accept-Encoding: identity', () => {
  it.each(['gzip', 'br', 'zstd', 'ssegzip'] as const)('%s: a v1 client is listed the schema and gets the validated structuredContent', async (mode) => {
    await start();
    const client = new Client({ name: 'v1', version: '1' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url(`/${mode}/mcp`))));
    const { tools } = await client.listTools();
    expect(tools[0]).toMatchObject({ name: 'weather', outputSchema: SCHEMA });
    const result = await client.callTool({ name: 'weather', arguments: {} });
    expect(result.structuredContent).toEqual(WEATHER);
  });

  it('what passes through unchanged reaches the client decoded, without the coding it never asked for', async () => {
    await start();
    const pong = await call('gzip', 'ping');
    expect(pong.status).toBe(200);
    expect(pong.headers['content-encoding']).toBeUndefined();
    expect(pong.body).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('a 2026-07-28 client is served over the same upstream (discover probe, pooled session)', async () => {
    await start();
    const client = new ClientV2({ name: 'v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(gateway.url('/gzip/mcp'))));
    const result = await client.callTool({ name: 'weather', arguments: {} });
    expect(result.structuredContent).toEqual(WEATHER);
  });

  it('a body that does not decode is the upstream\'s protocol failure: 502, UPSTREAM_PROTOCOL, counted as such', async () => {
    await start();
    const failed = await call('corrupt', 'tools/call', { name: 'weather', arguments: {} });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ id: 9, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } } });
    const errors = (await gateway.metrics.upstreamErrors.get()).values;
    expect(errors.find((v) => v.labels.upstream === 'corrupt')).toMatchObject({ labels: { kind: 'protocol' }, value: 1 });
  });

  it('a compression bomb is bounded as its decoded size: RESULT_TOO_LARGE, not 64 MiB held', async () => {
    await start();
    const before = process.memoryUsage().rss;
    const failed = await call('bomb', 'tools/call', { name: 'weather', arguments: {} });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ id: 9, error: { data: { code: 'RETROFIT_ERR_RESULT_TOO_LARGE' } } });
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });
});
