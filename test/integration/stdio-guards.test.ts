/**
 * stdio routes sit behind the same guards as HTTP upstreams: the gateway's bearer tokens and the Origin
 * allow-list. A rejected request never spawns a child.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { registerStdioRoutes, type StdioUpstreamRoutes } from '../../src/http/stdio-routes.js';
import type { StdioUpstreamConfig } from '../../src/config/types.js';
import { FIXTURE_SERVER, firstText, gatewayConfig, gatewayDeps } from '../helpers/stdio-gateway.js';

let app: FastifyInstance | undefined;
let routes: StdioUpstreamRoutes | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await routes?.close();
  await app?.close();
  client = undefined;
  routes = undefined;
  app = undefined;
});

const upstream: StdioUpstreamConfig = { kind: 'stdio', name: 'guarded', path: '/guarded/mcp', timeoutMs: 1000, tools: {}, command: process.execPath, args: [FIXTURE_SERVER], env: {} };
const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function start(): Promise<string> {
  const config = { ...gatewayConfig(upstream), auth: { bearerTokens: ['s3cret-token'] }, allowedOrigins: ['https://ok.example'] };
  app = Fastify({ forceCloseConnections: true });
  routes = registerStdioRoutes(app, upstream, gatewayDeps(config, []));
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return `${address}${upstream.path}`;
}

describe('stdio upstream: guards', () => {
  it('rejects a missing bearer token with 401 and a foreign Origin with 403, spawning nothing', async () => {
    const url = await start();
    const noToken = await fetch(url, { method: 'POST', headers, body: init });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toBe('Bearer');
    const badOrigin = await fetch(url, { method: 'POST', headers: { ...headers, authorization: 'Bearer s3cret-token', origin: 'https://evil.example' }, body: init });
    expect(badOrigin.status).toBe(403);
    expect(routes!.pids()).toEqual([]);
  });

  it('serves a client that presents the token', async () => {
    const url = await start();
    client = new Client({ name: 'guarded', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer s3cret-token', origin: 'https://ok.example' } } }));
    expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'in' } }))).toBe('in');
  });
});
