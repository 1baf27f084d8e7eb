/**
 * DNS-rebinding protection at the gateway (the upstream's own check no longer protects once Host is rewritten):
 * a real gateway on port 0 with one upstream of each kind (url, command, sse), real requests that set Host and
 * Origin. Bound to loopback: only loopback Hosts (and allowedHosts) pass. Bound to 0.0.0.0: Host is checked only
 * when allowedHosts is set; Origin is checked either way. Ops endpoints answer whatever the Host.
 */
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { LoadedConfig } from '../../src/config/load.js';
import type { GatewayConfig, StdioUpstreamConfig } from '../../src/config/types.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { gatewayConfig, httpUpstream, sseUpstream, stdioUpstream } from '../helpers/config.js';
import { captureLogs } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'dns', version: '1' } } });
const EVIL = 'evil.example.com';
/** The MCP route of each kind of upstream: url, command, sse. */
const ROUTES = ['/remote/mcp', '/local/mcp', '/legacy/sse'];

/** A url: and an sse: upstream that count what reaches them, and the fixture stdio server. */
async function upstreams(): Promise<{ loaded: (overrides?: Partial<GatewayConfig>) => LoadedConfig; hits: () => number }> {
  let hits = 0;
  const up = await listen((req, res) => {
    hits++;
    if (req.method === 'GET' && req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: endpoint\ndata: /messages?sessionId=s1\n\n');
      return;
    }
    void readBody(req).then(() => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"u","version":"1"}}}');
    });
  });
  const stdio: StdioUpstreamConfig = stdioUpstream('local', process.execPath, { timeoutMs: 10_000, args: [FIXTURE_SERVER], cwd: process.cwd() });
  const http = httpUpstream('remote', `${up.origin}/mcp`);
  const sse = sseUpstream('legacy', `${up.origin}/sse`, { path: '/legacy/sse', timeoutMs: 10_000 });
  return { loaded: (overrides = {}) => gatewayConfig([http, stdio, sse], overrides), hits: () => hits };
}

/** The gateway bound to `host` on port 0; returns the port (always reached through 127.0.0.1). */
async function start(loaded: LoadedConfig, host: string): Promise<{ app: FastifyInstance; port: number }> {
  const { stream } = captureLogs();
  const app = await buildApp(loaded, { logger: createLogger({ level: 'warn', destination: stream }), metrics: createMetrics({ defaultMetrics: false }) });
  onTestFinished(() => app.close());
  await app.listen({ host, port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return { app, port: address.port };
}

interface Answer {
  readonly status: number;
  readonly code?: string;
}

/** One request to `path` with the given Host (default: the real one) and Origin (default: none). */
async function send(port: number, path: string, headers: { host?: string; origin?: string } = {}): Promise<Answer> {
  const sse = path.endsWith('/sse');
  const post = ROUTES.includes(path) && !sse;
  const res = await request(`http://127.0.0.1:${port}${path}`, {
    method: post ? 'POST' : 'GET',
    headers: {
      host: headers.host ?? `127.0.0.1:${port}`,
      ...(headers.origin !== undefined && { origin: headers.origin }),
      'content-type': 'application/json',
      accept: sse ? 'text/event-stream' : 'application/json, text/event-stream',
    },
    ...(post && { body: INIT }),
  });
  if (res.statusCode !== 403) {
    res.body.on('error', () => {});
    res.body.destroy();
    return { status: res.statusCode };
  }
  const body = (await res.body.json()) as { id: unknown; error: { code: number; data: { code: string } } };
  expect(body).toMatchObject({ jsonrpc: '2.0', id: null });
  return { status: 403, code: body.error.data.code };
}

const OK: Answer = { status: 200 };
const HOST: Answer = { status: 403, code: 'RETROFIT_ERR_FORBIDDEN_HOST' };
const ORIGIN: Answer = { status: 403, code: 'RETROFIT_ERR_FORBIDDEN_ORIGIN' };

describe('DNS-rebinding protection', () => {
  it('bound to loopback: a foreign Host or Origin gets 403 on every kind of upstream, loopback values pass', async () => {
    const { loaded, hits } = await upstreams();
    const { port } = await start(loaded(), '127.0.0.1');
    for (const path of ROUTES) {
      expect(await send(port, path, { host: EVIL, origin: `http://${EVIL}` }), `${path} both`).toEqual(HOST);
      expect(await send(port, path, { host: `${EVIL}:${port}` }), `${path} host`).toEqual(HOST);
      expect(await send(port, path, { origin: `http://${EVIL}` }), `${path} origin`).toEqual(ORIGIN);
    }
    // Nothing refused reached an upstream (and no stdio child was spawned for it).
    expect(hits()).toBe(0);
    for (const path of ROUTES) {
      expect(await send(port, path), `${path} neither`).toEqual(OK);
      expect(await send(port, path, { host: `localhost:${port}`, origin: `http://localhost:${port}` }), `${path} localhost`).toEqual(OK);
      expect(await send(port, path, { host: `[::1]:${port}`, origin: 'http://127.0.0.1:6274' }), `${path} [::1]`).toEqual(OK);
    }
    // The OAuth discovery routes are guarded too; probes reach the ops endpoints whatever the Host.
    expect(await send(port, '/.well-known/oauth-protected-resource/remote/mcp', { host: EVIL })).toEqual(HOST);
    for (const ops of ['/healthz', '/readyz', '/metrics']) expect((await send(port, ops, { host: '10.1.2.3:8080', origin: `http://${EVIL}` })).status, ops).toBe(200);
  });

  it('bound to loopback: allowedHosts and allowedOrigins add names; "*" turns a check off', async () => {
    const { loaded } = await upstreams();
    const { port } = await start(loaded({ allowedHosts: ['mcp.example.com', '*.internal.test'], allowedOrigins: ['https://app.example.com'] }), '127.0.0.1');
    for (const path of ROUTES) {
      expect(await send(port, path, { host: 'mcp.example.com', origin: 'https://app.example.com' }), path).toEqual(OK);
      expect(await send(port, path, { host: `svc.internal.test:${port}` }), path).toEqual(OK);
      expect(await send(port, path, { host: EVIL }), path).toEqual(HOST);
      expect(await send(port, path, { host: 'mcp.example.com', origin: 'https://mcp.example.com' }), path).toEqual(ORIGIN);
    }
    const open = await start(loaded({ allowedHosts: ['*'], allowedOrigins: ['*'] }), '127.0.0.1');
    expect(await send(open.port, '/remote/mcp', { host: EVIL, origin: `http://${EVIL}` })).toEqual(OK);
  });

  it('bound to 0.0.0.0: no Host check unless allowedHosts is set, and a foreign Origin is still refused', async () => {
    const { loaded } = await upstreams();
    const { port } = await start(loaded(), '0.0.0.0');
    for (const path of ROUTES) {
      expect(await send(port, path, { host: `${EVIL}:${port}` }), `${path} host`).toEqual(OK);
      expect(await send(port, path, { host: EVIL, origin: `http://${EVIL}` }), `${path} both`).toEqual(ORIGIN);
      expect(await send(port, path, { origin: 'http://localhost:6274' }), `${path} loopback origin`).toEqual(OK);
    }
    const listed = await start(loaded({ allowedHosts: ['mcp.example.com'] }), '0.0.0.0');
    for (const path of ROUTES) {
      expect(await send(listed.port, path, { host: EVIL }), path).toEqual(HOST);
      expect(await send(listed.port, path, { host: 'mcp.example.com:443' }), path).toEqual(OK);
      expect(await send(listed.port, path, { host: `localhost:${listed.port}` }), path).toEqual(OK);
    }
    expect((await send(listed.port, '/healthz', { host: '10.1.2.3:8080' })).status).toBe(200);
  });
});
