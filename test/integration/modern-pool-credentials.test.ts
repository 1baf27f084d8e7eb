/**
 * Review regressions (2026-07-28 clients served on pooled sessions of a `url` upstream that holds sessions and
 * wants a bearer token, tokA or tokB):
 * - an initialize the upstream refused (401) left its pool slot taken and the request hanging for good: two
 *   requests without a token locked every later client out. Now the client gets the upstream's 401, challenge
 *   rewritten, at once, and the slot is free;
 * - server/discover answered with whichever user's InitializeResult came last (tokA's instructions to anyone);
 * - resource subscriptions were held on one session whatever the listener's credentials, and every listener of a
 *   URI got its updates;
 * - the client profile was the first client's of the pooled session, not the request's;
 * - `<path>/.well-known/…` and the protected-resource metadata, open to anyone, went out with the operator's
 *   configured `headers:`;
 * - an SSE answer the upstream cut mid-event was answered at timeoutMs (UPSTREAM_TIMEOUT), not at once;
 * - a request on a pooled session whose token the upstream has since revoked got a JSON-RPC error (200), not the
 *   upstream's 401 and challenge, so the client never knew to authorize again.
 */
import { createServer, type ServerResponse, type Server } from 'node:http';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startServe } from '../helpers/serve.js';
import { tempFiles } from '../unit/config/helpers.js';

const MODERN = '2026-07-28';
const meta = (client = 'raw'): Record<string, unknown> => ({ 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: client, version: '1' } });

let upstream: Server;
let port = 0;
/** What the upstream saw: every well-known request's headers, every subscribe (token, uri). */
const seen = { wellKnown: [] as Record<string, unknown>[], subscribed: [] as { tok: string; uri: string }[] };
/** Tokens the upstream no longer accepts (revoked while their sessions are open). */
const revoked = new Set<string>();

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  const sessions = new Map<string, string>();
  let n = 0;
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if ((req.url ?? '').includes('/.well-known/')) {
        seen.wellKnown.push({ url: req.url, authorization: req.headers.authorization, 'x-api-key': req.headers['x-api-key'] });
        return json(res, 200, { resource: `http://127.0.0.1:${port}/mcp`, authorization_servers: ['https://as.example'] });
      }
      const tok = /^Bearer (tok[ABC])$/.exec(req.headers.authorization ?? '')?.[1];
      if (!tok || revoked.has(tok)) return json(res, 401, { error: 'unauthorized' }, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"` });
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      if (req.method === 'GET') return void res.writeHead(405).end();
      const m = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string | number; method: string; params?: { name?: string; uri?: string } };
      if (m.method === 'initialize') {
        const sid = `s-${tok}-${++n}`;
        sessions.set(sid, tok);
        const result = { protocolVersion: '2025-11-25', capabilities: { tools: {}, resources: { subscribe: true } }, serverInfo: { name: 'up', version: '1' }, instructions: `private to ${tok}` };
        return json(res, 200, { jsonrpc: '2.0', id: m.id, result }, { 'mcp-session-id': sid });
      }
      const owner = sessions.get(String(req.headers['mcp-session-id']));
      if (owner === undefined) return json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'no session' } });
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'server/discover') return json(res, 200, { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
      if (m.method === 'resources/subscribe' && m.params?.uri) {
        seen.subscribed.push({ tok: owner, uri: m.params.uri });
        // The update comes on the subscribe's own answer stream, before its result.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: m.params.uri, _meta: { owner } } })}\n\n`);
        return res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} })}\n\n`);
      }
      if (m.method === 'tools/list') return json(res, 200, { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'whoami', inputSchema: { type: 'object' } }, { name: 'cut', inputSchema: { type: 'object' } }, { name: 'touch', inputSchema: { type: 'object' } }] } });
      if (m.method === 'tools/call' && m.params?.name === 'touch') {
        // A resource update on the call's own answer stream, before its result.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://shared', _meta: { owner: `${owner} (touch)` } } })}\n\n`);
        return res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [] } })}\n\n`);
      }
      if (m.method === 'tools/call' && m.params?.name === 'cut') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: message\ndata: {"jsonrpc":"2.0","id":');
        return void setImmediate(() => res.destroy());
      }
      if (m.method === 'tools/call') return json(res, 200, { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify({ owner, auth: tok }) }] } });
      json(res, 200, { jsonrpc: '2.0', id: m.id, result: {} });
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as { port: number }).port;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

async function start(poolSize = 2): Promise<TestGateway> {
  const dir = await tempFiles({
    'config.yaml': `
clients:
  - name: strip
    match: { name: strip-me }
    outputSchema: strip
upstreams:
  up:
    url: http://127.0.0.1:${port}/mcp
    headers: { X-Api-Key: operator-secret }
    timeoutMs: 20000
    stateless: { poolSize: ${poolSize} }
    tools:
      whoami:
        outputSchema: { type: object, properties: { owner: { type: string }, auth: { type: string } }, required: [owner, auth] }
`,
  });
  return startGateway(await loadConfig(join(dir, 'config.yaml')));
}

function post(gw: TestGateway, body: Record<string, unknown>, token?: string): Promise<Response> {
  const params = (body.params ?? {}) as Record<string, unknown>;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': String(body.method) };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(gw.url('/up/mcp'), { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
}

const call = (gw: TestGateway, id: number, token?: string, client = 'raw', name = 'whoami'): Promise<Response> => post(gw, { id, method: 'tools/call', params: { name, arguments: {}, _meta: meta(client) } }, token);

describe('2026-07-28 clients on pooled sessions of a credentialed url upstream', () => {
  it('a refused initialize answers the client with the upstream\'s 401 at once and frees its pool slot', async () => {
    const gw = await start();
    // A first request finds out that the upstream holds sessions (its server/discover is refused): from then on
    // every 2026-07-28 request is served on a pooled session the gateway initializes.
    expect((await call(gw, 100, 'tokA')).status).toBe(200);
    // Twice the pool's size: each used to keep a slot forever (and its request to hang).
    for (let i = 0; i < 4; i++) {
      const refused = await call(gw, i);
      expect(refused.status).toBe(401);
      // The challenge names the gateway's metadata for this upstream, not the upstream's own.
      expect(refused.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", resource_metadata="${gw.origin}/.well-known/oauth-protected-resource/up/mcp"`);
    }
    expect(gw.app.upstreams.get('up')?.counts?.()).toMatchObject({ poolStarting: 0 });
    for (const tok of ['tokA', 'tokB']) {
      const ok = await call(gw, 10, tok);
      expect(((await ok.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ owner: tok, auth: tok });
    }
  });

  it('server/discover answers each user from a session of their own: never another user\'s InitializeResult', async () => {
    const gw = await start();
    const discover = (token?: string): Promise<Response> => post(gw, { id: 1, method: 'server/discover', params: { _meta: meta() } }, token);
    expect(((await (await discover('tokA')).json()) as { result: { instructions: string } }).result.instructions).toBe('private to tokA');
    expect(((await (await discover('tokB')).json()) as { result: { instructions: string } }).result.instructions).toBe('private to tokB');
    const anonymous = await discover();
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain('private');
  });

  it('resource subscriptions are made with each listener\'s credentials, and updates reach only that user\'s listeners', async () => {
    // Each user's subscriptions hold a session of their own: a third serves the call below.
    const gw = await start(3);
    seen.subscribed.length = 0;
    const listener = async (token: string): Promise<{ updates: string[]; client: ClientV2 }> => {
      const client = new ClientV2({ name: `listener-${token}`, version: '1' }, { versionNegotiation: { mode: { pin: MODERN } } } as never);
      onTestFinished(() => client.close());
      await client.connect(new TransportV2(new URL(gw.url('/up/mcp')), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      const updates: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(`${n.params.uri} for ${String((n.params._meta as { owner?: unknown } | undefined)?.owner)}`));
      const subscription = await client.listen({ resourceSubscriptions: ['mem://shared'] });
      onTestFinished(() => subscription.close());
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['mem://shared'] });
      return { updates, client };
    };
    const a = await listener('tokA');
    await expect.poll(() => a.updates).toEqual(['mem://shared for tokA']);
    const b = await listener('tokB');
    await expect.poll(() => b.updates).toEqual(['mem://shared for tokB']);
    // Each user's subscription went upstream on a session of their own; neither heard the other's update.
    expect(seen.subscribed).toEqual([{ tok: 'tokA', uri: 'mem://shared' }, { tok: 'tokB', uri: 'mem://shared' }]);
    expect(a.updates).toEqual(['mem://shared for tokA']);
    // An update that comes on a call's answer stream reaches that user's listeners only (it reached nobody before).
    // (A request of the listener's own client: the same key, credentials and capabilities, as its subscriptions.)
    expect(await b.client.callTool({ name: 'touch', arguments: {} })).toMatchObject({ content: [] });
    await expect.poll(() => b.updates).toEqual(['mem://shared for tokB', 'mem://shared for tokB (touch)']);
    expect(a.updates).toEqual(['mem://shared for tokA']);
  });

  it('the client profile is the request\'s own, whoever opened the pooled session', async () => {
    const gw = await start();
    const structured = async (client: string): Promise<unknown> => ((await (await call(gw, 1, 'tokA', client)).json()) as { result: { structuredContent?: unknown } }).result.structuredContent;
    expect(await structured('strip-me')).toBeUndefined();
    expect(await structured('plain')).toEqual({ owner: 'tokA', auth: 'tokA' });
    expect(await structured('strip-me')).toBeUndefined();
  });

  it('discovery documents, open to anyone, are fetched without the operator\'s configured headers', async () => {
    const gw = await start();
    seen.wellKnown.length = 0;
    expect((await fetch(gw.url('/up/mcp/.well-known/anything'))).status).toBe(200);
    expect((await fetch(gw.url('/.well-known/oauth-protected-resource/up/mcp'))).status).toBe(200);
    expect(seen.wellKnown.length).toBeGreaterThanOrEqual(2);
    for (const request of seen.wellKnown) expect(request).toMatchObject({ authorization: undefined, 'x-api-key': undefined });
  });

  it('a token revoked while its pooled session is open: the client gets the upstream\'s 401 and challenge, not a JSON-RPC error', async () => {
    const gw = await start();
    expect((await call(gw, 1, 'tokC')).status).toBe(200);
    revoked.add('tokC');
    onTestFinished(() => void revoked.delete('tokC'));
    const refused = await call(gw, 2, 'tokC');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${gw.origin}/.well-known/oauth-protected-resource/up/mcp"`);
    expect(await refused.json()).toEqual({ error: 'unauthorized' });
    // The session went back to the pool: the same client, authorized again, is served.
    revoked.delete('tokC');
    const again = await call(gw, 3, 'tokC');
    expect(again.status).toBe(200);
    expect(((await again.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ owner: 'tokC', auth: 'tokC' });
  });

  it('an answer stream cut mid-event answers its request at once with UPSTREAM_RESET, not at timeoutMs', async () => {
    const gw = await start();
    const started = Date.now();
    const cut = await call(gw, 5, 'tokA', 'raw', 'cut');
    const text = await cut.text();
    expect(text).toContain('RETROFIT_ERR_UPSTREAM_RESET');
    // timeoutMs is 20 s: an answer within it came from the reset, not the deadline.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('a reload that changes an upstream\'s settings', () => {
  it('serves 2026-07-28 requests on sessions opened with the new headers, never the rotated ones (review finding)', async () => {
    const config = (token: string): string => `
upstreams:
  up:
    url: http://127.0.0.1:${port}/mcp
    headers: { Authorization: "Bearer ${token}" }
    tools:
      whoami:
        outputSchema: { type: object, properties: { owner: { type: string }, auth: { type: string } }, required: [owner, auth] }
`;
    const served = await startServe(config('tokA'));
    const whoami = async (): Promise<unknown> => {
      const res = await fetch(`${served.origin}/up/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'whoami' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: meta() } }),
      });
      return ((await res.json()) as { result: { structuredContent: unknown } }).result.structuredContent;
    };
    expect(await whoami()).toEqual({ owner: 'tokA', auth: 'tokA' });
    served.write(config('tokB'));
    expect(await served.sighup()).toMatchObject({ ok: true });
    // The pooled session opened with tokA is not lent again: a new one, opened with tokB, serves.
    expect(await whoami()).toEqual({ owner: 'tokB', auth: 'tokB' });
  });
});
