/**
 * A client whose request id is an integer past 2^53 (as 64-bit ids from Go, Rust or Python clients can be) gets
 * its retrofitted answer under that same id. JSON.parse rounds it (12345678901234567890 reads as
 * 12345678901234567000), and the rewritten answer used to be serialised with the rounded id: the client could
 * never match it. The upstream's own literal is kept, over JSON and SSE answers, whichever end the id is at, in
 * a batch, and for a result large enough to be retrofitted on a worker (parsed there, or parsed here and its
 * result serialised there).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const SCHEMA: JsonObject = { type: 'object', properties: { city: { type: 'string' }, t: { type: 'number' } }, required: ['city', 't'] };
const RESULT = '{"content":[{"type":"text","text":"{\\"city\\":\\"Paris\\",\\"t\\":17}"}]}';
const BIG = '12345678901234567890';
const BIG2 = '12345678901234567891';
// Past the 256 KiB at which a result is retrofitted on a worker.
const PAD = 'x'.repeat(300 * 1024);
const LARGE_RESULT = JSON.stringify({ content: [{ type: 'text', text: JSON.stringify({ city: 'Paris', t: 17, pad: PAD }) }] });
const COUNT_SCHEMA: JsonObject = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
const RESULTS: Record<string, string> = { weather: RESULT, large: LARGE_RESULT, count: '{"content":[{"type":"text","text":"{\\"n\\":3}"}]}' };

let upstream: Server;
let port = 0;

beforeAll(async () => {
  // Echoes the request's id literal as written (JSON.parse would round it): id first on /json, last (the
  // SDKs' layout) on /sse.
  // A batch is answered with a batch, each id as its request wrote it; tool `large` answers past the worker threshold.
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      // Failures the gateway answers itself: the connection reset before any answer, or an SSE stream broken
      // after one notification.
      if (req.url?.startsWith('/reset')) return req.socket.destroy();
      if (req.url?.startsWith('/broken')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}\n\n', () => res.socket?.destroy());
        return;
      }
      const result = body.includes('"large"') ? LARGE_RESULT : RESULT;
      const ids = [...body.matchAll(/"id":(\d+)/g)].map((m) => m[1]!);
      if (req.url?.startsWith('/sse')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: {"result":${result},"jsonrpc":"2.0","id":${ids[0] ?? 'null'}}\n\n`);
      } else if (body.trimStart().startsWith('[')) {
        const calls = [...body.matchAll(/"id":(\d+),"method":"tools\/call","params":\{"name":"(\w+)"/g)];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`[${calls.map(([, id, tool]) => `{"jsonrpc":"2.0","id":${id},"result":${RESULTS[tool!]}}`).join(',')}]`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"jsonrpc":"2.0","id":${ids[0] ?? 'null'},"result":${result}}`);
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
  const tools = { weather: { outputSchema: SCHEMA }, large: { outputSchema: SCHEMA }, count: { outputSchema: COUNT_SCHEMA } };
  return startGateway(
    gatewayConfig([
      httpUpstream('json', `http://127.0.0.1:${port}/json/mcp`, { tools }),
      httpUpstream('sse', `http://127.0.0.1:${port}/sse/mcp`, { tools }),
      httpUpstream('reset', `http://127.0.0.1:${port}/reset/mcp`, { tools }),
      httpUpstream('broken', `http://127.0.0.1:${port}/broken/mcp`, { tools }),
    ]),
  );
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const call = (id: string, tool = 'weather'): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{}}}`;
/** The id literals of a JSON text, in order, as written. */
const idLiterals = (text: string): string[] => [...text.matchAll(/"id":(\d+)/g)].map((m) => m[1]!);
type Answer = { result: { structuredContent?: { city?: string } } };

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

  it('a batch: each answer under the id its request had, each retrofitted', async () => {
    const gateway = await start();
    const res = await fetch(gateway.url('/json/mcp'), { method: 'POST', headers: HEADERS, body: `[${call(BIG)},${call(BIG2)}]` });
    const text = await res.text();
    expect(idLiterals(text)).toEqual([BIG, BIG2]);
    const answers = JSON.parse(text) as Answer[];
    expect(answers.map((a) => a.result.structuredContent)).toEqual([
      { city: 'Paris', t: 17 },
      { city: 'Paris', t: 17 },
    ]);
  });

  it('two requests whose ids read as the same double, to different tools: each answer retrofitted for its own request', async () => {
    // JSON.parse reads 12345678901234567890 and …891 alike, as 12345678901234567000.
    expect(JSON.parse(BIG)).toBe(JSON.parse(BIG2));
    const gateway = await start();
    const res = await fetch(gateway.url('/json/mcp'), { method: 'POST', headers: HEADERS, body: `[${call(BIG, 'weather')},${call(BIG2, 'count')}]` });
    const text = await res.text();
    expect(idLiterals(text)).toEqual([BIG, BIG2]);
    expect((JSON.parse(text) as { result: { structuredContent?: unknown; isError?: boolean } }[]).map((a) => a.result)).toEqual([
      expect.objectContaining({ structuredContent: { city: 'Paris', t: 17 } }),
      expect.objectContaining({ structuredContent: { n: 3 } }),
    ]);
  });

  it('a large result retrofitted on a worker from the raw answer: the same, over JSON and SSE', async () => {
    const gateway = await start();
    const json = await (await fetch(gateway.url('/json/mcp'), { method: 'POST', headers: HEADERS, body: call(BIG, 'large') })).text();
    expect(json.startsWith(`{"jsonrpc":"2.0","id":${BIG},"result":`)).toBe(true);
    expect((JSON.parse(json) as Answer).result.structuredContent?.city).toBe('Paris');
    const sse = await (await fetch(gateway.url('/sse/mcp'), { method: 'POST', headers: HEADERS, body: call(BIG, 'large') })).text();
    const data = sse.split('\n').find((l) => l.startsWith('data: '))!;
    expect(data.endsWith(`"jsonrpc":"2.0","id":${BIG}}`)).toBe(true);
    expect((JSON.parse(data.slice(6)) as Answer).result.structuredContent?.city).toBe('Paris');
  });

  it('large results in a batch (each retrofitted on a worker from its own bytes): each id kept', async () => {
    const gateway = await start();
    const text = await (await fetch(gateway.url('/json/mcp'), { method: 'POST', headers: HEADERS, body: `[${call(BIG, 'large')},${call(BIG2, 'large')}]` })).text();
    expect(idLiterals(text)).toEqual([BIG, BIG2]);
    expect((JSON.parse(text) as Answer[]).map((a) => a.result.structuredContent?.city)).toEqual(['Paris', 'Paris']);
  });

  it("the gateway's own error answers carry the id as the client wrote it: a reset upstream (JSON), a broken SSE stream", async () => {
    const gateway = await start();
    const reset = await fetch(gateway.url('/reset/mcp'), { method: 'POST', headers: HEADERS, body: call(BIG) });
    expect(reset.status).toBe(502);
    const text = await reset.text();
    expect(idLiterals(text)).toEqual([BIG]);
    expect((JSON.parse(text) as { error: { data: { code: string } } }).error.data.code).toBe('RETROFIT_ERR_UPSTREAM_RESET');
    const broken = await (await fetch(gateway.url('/broken/mcp'), { method: 'POST', headers: HEADERS, body: call(BIG) })).text();
    const events = broken.split('\n').filter((l) => l.startsWith('data: '));
    expect(events).toHaveLength(2);
    expect(idLiterals(events[1]!)).toEqual([BIG]);
    expect(events[1]).toContain('RETROFIT_ERR_UPSTREAM_RESET');
  });

  it('an ordinary id is written as before', async () => {
    const gateway = await start();
    const res = await fetch(gateway.url('/json/mcp'), { method: 'POST', headers: HEADERS, body: call('42') });
    const body = (await res.json()) as { id: number; result: { structuredContent?: unknown } };
    expect(body.id).toBe(42);
    expect(body.result.structuredContent).toEqual({ city: 'Paris', t: 17 });
  });
});
