/**
 * A client whose request id is an integer past 2^53 (as 64-bit ids from Go, Rust or Python clients can be) gets
 * its retrofitted answer under that same id. JSON.parse rounds it (12345678901234567890 reads as
 * 12345678901234567000), and the rewritten answer used to be serialised with the rounded id: the client could
 * never match it. The upstream's own literal is kept, over JSON and SSE answers, whichever end the id is at.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const SCHEMA: JsonObject = { type: 'object', properties: { city: { type: 'string' }, t: { type: 'number' } }, required: ['city', 't'] };
const RESULT = '{"content":[{"type":"text","text":"{\\"city\\":\\"Paris\\",\\"t\\":17}"}]}';
const BIG = '12345678901234567890';

let upstream: Server;
let port = 0;

beforeAll(async () => {
  // Echoes the request's id literal as written (JSON.parse would round it): id first on /json, last (the
  // SDKs' layout) on /sse.
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = /"id":(\d+)/.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? 'null';
      if (req.url?.startsWith('/sse')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: {"result":${RESULT},"jsonrpc":"2.0","id":${id}}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"jsonrpc":"2.0","id":${id},"result":${RESULT}}`);
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as { port: number }).port;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

async function start(): Promise<TestGateway> {
  const tools = { weather: { outputSchema: SCHEMA } };
  return startGateway(gatewayConfig([httpUpstream('json', `http://127.0.0.1:${port}/json/mcp`, { tools }), httpUpstream('sse', `http://127.0.0.1:${port}/sse/mcp`, { tools })]));
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const call = (id: string): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"weather","arguments":{}}}`;

describe('a retrofitted answer to an id past 2^53', () => {
  it('JSON answer: the id as the client sent it, and the retrofit applied', async () => {
    const gateway = await start();
    const res = await fetch(gateway.url('/json/mcp'), { method: 'POST', headers: HEADERS, body: call(BIG) });
    const text = await res.text();
    expect(text.startsWith(`{"jsonrpc":"2.0","id":${BIG},"result":`)).toBe(true);
    expect((JSON.parse(text) as { result: { structuredContent?: unknown } }).result.structuredContent).toEqual({ city: 'Paris', t: 17 });
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  });

  it('SSE answer with the id last: the same', async () => {
    const gateway = await start();
    const res = await fetch(gateway.url('/sse/mcp'), { method: 'POST', headers: HEADERS, body: call(BIG) });
    const data = (await res.text()).split('\n').find((l) => l.startsWith('data: '))!;
    expect(data.endsWith(`"jsonrpc":"2.0","id":${BIG}}`)).toBe(true);
    expect((JSON.parse(data.slice(6)) as { result: { structuredContent?: unknown } }).result.structuredContent).toEqual({ city: 'Paris', t: 17 });
  });

  it('an ordinary id is written as before', async () => {
    const gateway = await start();
    const res = await fetch(gateway.url('/json/mcp'), { method: 'POST', headers: HEADERS, body: call('42') });
    const body = (await res.json()) as { id: number; result: { structuredContent?: unknown } };
    expect(body.id).toBe(42);
    expect(body.result.structuredContent).toEqual({ city: 'Paris', t: 17 });
  });
});
