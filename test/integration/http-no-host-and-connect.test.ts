/**
 * Two requests Node's HTTP server answers on its own unless told otherwise: an HTTP/1.1 request without Host
 * (Node: a bare 400 with no body) and CONNECT (Node: the connection dropped, no answer). The gateway gives both
 * its own JSON-RPC error — 400 RETROFIT_ERR_INVALID_REQUEST and 405 RETROFIT_ERR_METHOD_NOT_ALLOWED — closes
 * the connection, and never asks the upstream. HTTP/1.0 has no Host requirement and is served.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';

/** Write `raw` on a new connection and resolve with all it receives until the gateway closes it. */
function exchange(gw: TestGateway, raw: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(gw.origin);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), '127.0.0.1', () => socket.write(raw));
    onTestFinished(() => void socket.destroy());
    const parts: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0), headers: text.slice(0, end).toLowerCase(), body: text.slice(end + 4) });
    });
  });
}

async function setup(limits = DEFAULT_LIMITS): Promise<{ gw: TestGateway; asked: () => number }> {
  let asked = 0;
  const up = await listen((_req, res) => {
    asked += 1;
    res.writeHead(500).end();
  });
  const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`)], { limits }));
  return { gw, asked: () => asked };
}

describe('requests Node would answer on its own', () => {
  it('an HTTP/1.1 request without Host gets 400 RETROFIT_ERR_INVALID_REQUEST as JSON-RPC, on every route', async () => {
    const { gw, asked } = await setup();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const raw of [
      'GET /healthz HTTP/1.1\r\n\r\n',
      `POST /remote/mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ]) {
      const answer = await exchange(gw, raw);
      expect(answer.status).toBe(400);
      expect(answer.headers).toContain('content-type: application/json');
      expect(answer.headers).toContain('connection: close');
      expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: an HTTP/1.1 request must carry a Host header', data: { code: 'RETROFIT_ERR_INVALID_REQUEST' } } });
    }
    expect(asked()).toBe(0);
  });

  it('the log line of a request without Host keeps its path, never its query (a token or a code may be in it)', async () => {
    const { gw } = await setup();
    const answer = await exchange(gw, 'GET /remote/mcp?access_token=SECRET-IN-QUERY HTTP/1.1\r\n\r\n');
    expect(answer.status).toBe(400);
    const line = gw.logs.find((l) => l.code === 'RETROFIT_ERR_INVALID_REQUEST');
    expect(line).toMatchObject({ method: 'GET', path: '/remote/mcp' });
    expect(JSON.stringify(gw.logs)).not.toContain('SECRET-IN-QUERY');
  });

  it('an HTTP/1.0 request without Host is served', async () => {
    const { gw } = await setup();
    const answer = await exchange(gw, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok' });
  });

  it('CONNECT gets 405 RETROFIT_ERR_METHOD_NOT_ALLOWED as JSON-RPC, and the connection closes', async () => {
    const { gw, asked } = await setup();
    const answer = await exchange(gw, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(answer.status).toBe(405);
    expect(answer.headers).toContain('connection: close');
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { code: 'RETROFIT_ERR_METHOD_NOT_ALLOWED' } } });
    expect(asked()).toBe(0);
    // The server still serves the next connection.
    expect((await fetch(`${gw.origin}/healthz`)).status).toBe(200);
  });
});

describe('the server the gateway builds for Fastify keeps its bounds', () => {
  it('an idle keep-alive connection is closed after limits.keepAliveTimeoutMs', async () => {
    const { gw } = await setup({ ...DEFAULT_LIMITS, keepAliveTimeoutMs: 300 });
    const started = performance.now();
    const answer = await exchange(gw, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(answer.headers).toContain('connection: keep-alive');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });
});
