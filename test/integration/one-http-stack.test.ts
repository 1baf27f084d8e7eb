/**
 * One HTTP stack (src/http/server/gate.ts): every request passes Fastify and the one gate — the same guards,
 * body limits, request ids, error shapes and log lines — whatever its route. A real gateway on port 0 in front
 * of a raw upstream that records what reaches it; real requests over sockets (undici, node:http for a chunked
 * body). Differential: the same request over a socket and through inject() gives the same answer and sends
 * the upstream the same bytes.
 */
import { request as httpRequest } from 'node:http';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { requestLines, startGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stack', version: '1' } } });
const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"u","version":"1"}}}';

interface Seen {
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A gateway in front of an upstream that answers every POST with ANSWER and records what it got. */
async function setup(overrides: Parameters<typeof gatewayConfig>[1] = {}): Promise<{ gw: TestGateway; seen: Seen[] }> {
  const seen: Seen[] = [];
  const up = await listen((req, res) => {
    void readBody(req).then((body) => {
      seen.push({ url: req.url ?? '', headers: req.headers, body: body.toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' }).end(ANSWER);
    });
  });
  const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`)], overrides));
  return { gw, seen };
}

async function post(gw: TestGateway, path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const answer = await request(gw.url(path), { method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
  return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
}

/** The headers that differ between any two answers (date) or between a socket and inject() (keep-alive). */
function stable(headers: Record<string, unknown>): Record<string, unknown> {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = headers;
  return rest;
}

describe('one HTTP stack', () => {
  it('serves a POST over a socket exactly as through inject()', async () => {
    const { gw, seen } = await setup();
    const direct = await post(gw, '/remote/mcp?x=1', INIT);
    const routed = await gw.app.inject({ method: 'POST', url: '/remote/mcp?x=1', payload: INIT, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });

    expect(direct.status).toBe(200);
    expect(direct.text).toBe(ANSWER);
    expect({ status: routed.statusCode, text: routed.body, headers: stable(routed.headers) }).toEqual({ status: direct.status, text: direct.text, headers: stable(direct.headers) });
    expect(seen.map((s) => [s.url, s.body])).toEqual([
      ['/mcp?x=1', INIT],
      ['/mcp?x=1', INIT],
    ]);
    // One request line each, with distinct ids.
    const lines = requestLines(gw.logs);
    expect(lines.map((l) => [l.method, l.status, l.outcome])).toEqual([
      ['initialize', 200, 'ok'],
      ['initialize', 200, 'ok'],
    ]);
    expect(new Set(lines.map((l) => l.reqId)).size).toBe(2);
    expect(String(lines[0]?.reqId)).toMatch(/^req-[0-9a-z]+$/);
  });

  it('answers a body that is not JSON with -32700, after reading it', async () => {
    const { gw, seen } = await setup();
    const answer = await post(gw, '/remote/mcp', '{nope');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: -32700 } });
    expect(seen).toEqual([]);
  });

  it('refuses with the gateway\'s errors: media type, length, guards, other paths; proxies other methods', async () => {
    const { gw, seen } = await setup({ allowedOrigins: [], auth: { bearerTokens: ['s3cret'] }, limits: { ...DEFAULT_LIMITS, maxRequestBytes: 1024 } });
    const auth = { authorization: 'Bearer s3cret' };

    expect((await post(gw, '/remote/mcp', INIT, { ...auth, 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(gw, '/remote/mcp', 'x'.repeat(2000), auth)).status).toBe(413);
    expect((await post(gw, '/remote/mcp', INIT, { ...auth, origin: 'https://evil.example.com' })).status).toBe(403);
    expect((await post(gw, '/remote/mcp', INIT)).status).toBe(401);
    expect((await post(gw, '/remote/mcp/', INIT, auth)).status).toBe(404);
    const deleted = await request(gw.url('/remote/mcp'), { method: 'DELETE', headers: auth });
    await deleted.body.dump();
    expect(seen).toHaveLength(1);

    expect((await post(gw, '/remote/mcp', INIT, auth)).status).toBe(200);
    expect(seen).toHaveLength(2);
    // Each refusal is one request line with the gateway's error code.
    const codes = requestLines(gw.logs).map((l) => [l.status, l.code]);
    expect(codes).toContainEqual([415, 'RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE']);
  });

  it('refuses a chunked body that outgrows the limit with 413 and connection: close, the upstream never asked', async () => {
    const { gw, seen } = await setup({ limits: { ...DEFAULT_LIMITS, maxRequestBytes: 1024 } });
    const answer = await new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      const req = httpRequest(gw.url('/remote/mcp'), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        void readBody(res).then((b) => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: b.toString('utf8') }), reject);
      });
      req.on('error', reject);
      // No Content-Length: counted while reading.
      for (let i = 0; i < 8; i++) req.write(' '.repeat(512));
      req.end();
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: -32600 } });
    expect(seen).toEqual([]);
    // The gateway serves the next request as usual.
    expect((await post(gw, '/remote/mcp', INIT)).status).toBe(200);
  });

  it('once shutdown began, answers every new request 503 RETROFIT_ERR_SHUTTING_DOWN while in-flight ones finish', async () => {
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived: (() => void) | undefined;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    const up = await listen((req, res) => {
      void readBody(req).then(async () => {
        arrived?.();
        await held;
        res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER);
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`)]), { shutdownGraceMs: 30_000 });
    const inflight = post(gw, '/remote/mcp', INIT);
    await first;
    const closing = gw.app.close();
    // close() runs its preClose hooks (the first turns the gate to refusing) before it waits for the drain.
    await vi.waitFor(() => expect(gw.app.gate.closing).toBe(true));
    for (const [method, path] of [['POST', '/remote/mcp'], ['GET', '/healthz'], ['GET', '/nowhere']] as const) {
      const answer = await request(gw.url(path), { method, ...(method === 'POST' && { body: INIT, headers: { 'content-type': 'application/json' } }) });
      expect(answer.statusCode).toBe(503);
      expect(answer.headers.connection).toBe('close');
      expect(await answer.body.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'the gateway is shutting down' } });
    }
    release?.();
    expect((await inflight).status).toBe(200);
    await closing;
  });
});
