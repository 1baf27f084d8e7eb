/**
 * stdio routes sit behind the same guards as HTTP upstreams: the gateway's bearer tokens and the Origin
 * allow-list. A rejected request never spawns a child.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { StdioUpstreamRoutes } from '../../src/http/upstream-routes.js';
import { firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

let routes: StdioUpstreamRoutes | undefined;

const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function start(): Promise<string> {
  const gw = await startStdioGateway({ name: 'guarded', upstream: { timeoutMs: 1000 }, config: { auth: { bearerTokens: ['s3cret-token'] }, allowedOrigins: ['https://ok.example'] } });
  routes = gw.routes;
  return gw.url;
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
    const client = new Client({ name: 'guarded', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer s3cret-token', origin: 'https://ok.example' } } }));
    expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'in' } }))).toBe('in');
  });
});
