/**
 * Regression: nothing bounded how long a request's body (or headers) may take to arrive — the server ran with
 * `requestTimeout: 0` — so a client trickling a body byte by byte (slowloris) held its connection, and the
 * exchange's state, forever (210 slow-body connections were still open after 90 s). Now
 * `limits.headersTimeoutMs` and `limits.requestTimeoutMs` bound both on every route: the client gets 408
 * RETROFIT_ERR_REQUEST_TIMEOUT as JSON-RPC and its connection closes; the upstream is never asked.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream, stdioUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';

const LIMITS = { ...DEFAULT_LIMITS, headersTimeoutMs: 300, requestTimeoutMs: 600 };

/** Open a raw connection, write `head` (and nothing more), and resolve with all it receives until it closes. */
function trickle(gw: TestGateway, head: string): Promise<{ text: string; elapsedMs: number }> {
  const started = performance.now();
  const { port } = new URL(gw.origin);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
    onTestFinished(() => void socket.destroy());
    const parts: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('close', () => resolve({ text: Buffer.concat(parts).toString('utf8'), elapsedMs: performance.now() - started }));
    socket.on('error', reject);
  });
}

async function setup(): Promise<{ gw: TestGateway; asked: () => number }> {
  let asked = 0;
  const up = await listen((_req, res) => {
    asked += 1;
    res.writeHead(500).end();
  });
  const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`), stdioUpstream('local', process.execPath)], { limits: LIMITS }));
  return { gw, asked: () => asked };
}

describe('regression: a request that never finishes arriving', () => {
  for (const path of ['/remote/mcp', '/local/mcp']) {
    it(`${path}: a trickled body gets 408 RETROFIT_ERR_REQUEST_TIMEOUT and the connection closes; the upstream is never asked`, async () => {
      const { gw, asked } = await setup();
      const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`;
      const { text, elapsedMs } = await trickle(gw, head);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'the request was not received within 600ms (limits.requestTimeoutMs)', data: { code: 'RETROFIT_ERR_REQUEST_TIMEOUT' } } });
      expect(elapsedMs).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 50);
      expect(asked()).toBe(0);
      expect(gw.logs.some((l) => l.code === 'RETROFIT_ERR_REQUEST_TIMEOUT')).toBe(true);
      // The gateway serves the next request as usual.
      expect((await fetch(gw.url('/healthz'))).status).toBe(200);
    });
  }

  it('headers that never end get 408 after headersTimeoutMs, naming that limit', async () => {
    const { gw } = await setup();
    const { text } = await trickle(gw, 'POST /remote/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { message: "the request's headers were not received within 300ms (limits.headersTimeoutMs)" } });
  });
});
