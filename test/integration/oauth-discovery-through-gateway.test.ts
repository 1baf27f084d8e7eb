/**
 * OAuth discovery through the gateway beyond the happy path: metadata kept at a custom location (found by asking
 * the upstream, so a gateway that never saw a 401 finds it), challenges rewritten on GET and DELETE too, a
 * document naming another resource passed unchanged (the client must refuse it, as it would directly), publicUrl
 * and X-Forwarded-Proto, root routes only for a single OAuth-capable upstream, the 2025-03-26 default endpoints
 * passed to the upstream's origin, and legacy SSE challenges (GET stream and POSTed message).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { startAuthServer, startProtectedServer, TestOAuthProvider } from '../helpers/oauth.js';

const challengeOf = async (url: string, method: string, headers: Record<string, string> = {}): Promise<string | null> => {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, ...(method === 'POST' && { body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }) });
  expect(res.status).toBe(401);
  return res.headers.get('www-authenticate');
};

describe('OAuth discovery through the gateway', () => {
  it('finds metadata at a custom location, rewrites challenges on POST, GET and DELETE', async () => {
    const as = await startAuthServer();
    const upstream = await startProtectedServer(as, { metadataPath: '/custom/metadata/location.json' });
    const gw = await startGateway(gatewayConfig([httpUpstream('secure', upstream.url)]));
    // First the document, from a gateway that has answered no 401 yet.
    const doc = await fetch(gw.url('/.well-known/oauth-protected-resource/secure/mcp'));
    expect(doc.headers.get('vary')).toBe('Host, X-Forwarded-Proto');
    expect(await doc.json()).toMatchObject({ resource: gw.url('/secure/mcp'), authorization_servers: [as.origin] });
    const expected = `resource_metadata="${gw.url('/.well-known/oauth-protected-resource/secure/mcp')}"`;
    for (const method of ['POST', 'GET', 'DELETE']) expect(await challengeOf(gw.url('/secure/mcp'), method), method).toContain(expected);
  });

  it('passes a document naming another resource unchanged, so the client refuses it as it would directly', async () => {
    const as = await startAuthServer();
    const upstream = await startProtectedServer(as, { resource: 'https://evil.example.com/mcp' });
    const gw = await startGateway(gatewayConfig([httpUpstream('secure', upstream.url)]));
    expect(await (await fetch(gw.url('/.well-known/oauth-protected-resource/secure/mcp'))).json()).toMatchObject({ resource: 'https://evil.example.com/mcp' });
    const client = new Client({ name: 'mismatch', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/secure/mcp')), { authProvider: new TestOAuthProvider() }))).rejects.toThrow(/does not match/);
    expect(as.resources).toEqual([]);
  });

  it('names publicUrl when configured, and the request`s scheme from X-Forwarded-Proto otherwise', async () => {
    const as = await startAuthServer();
    const upstream = await startProtectedServer(as);
    const publicUrl = 'https://mcp.example.com/tools/secure';
    const gw = await startGateway(gatewayConfig([{ ...httpUpstream('secure', upstream.url), publicUrl }, httpUpstream('plain', upstream.url)]));
    expect(await challengeOf(gw.url('/secure/mcp'), 'POST')).toContain('resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/tools/secure"');
    const pinned = await fetch(gw.url('/.well-known/oauth-protected-resource/secure/mcp'), { headers: { 'x-forwarded-proto': 'http' } });
    expect(pinned.headers.get('vary')).toBeNull();
    expect(await pinned.json()).toMatchObject({ resource: publicUrl });
    const host = new URL(gw.origin).host;
    expect(await challengeOf(gw.url('/plain/mcp'), 'POST', { 'x-forwarded-proto': 'https' })).toContain(`resource_metadata="https://${host}/.well-known/oauth-protected-resource/plain/mcp"`);
    const proto = await fetch(gw.url('/.well-known/oauth-protected-resource/plain/mcp'), { headers: { 'x-forwarded-proto': 'https' } });
    expect(await proto.json()).toMatchObject({ resource: `https://${host}/plain/mcp` });
    // Two OAuth-capable upstreams: a root document could be either's.
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']) expect((await fetch(gw.url(path))).status, path).toBe(404);
  });

  it('passes 2025-03-26 discovery and default endpoints to the single upstream`s origin, with the client`s credentials', async () => {
    const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body.toString('utf8') });
        if (req.url?.startsWith('/authorize')) return void res.writeHead(302, { location: 'http://127.0.0.1:1/cb?code=c1&state=s' }).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"at":"${req.url ?? ''}"}`);
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('legacy', `${up.origin}/mcp`, { headers: { Authorization: 'Bearer operator-static' } })]));
    const authorize = await request(gw.url('/authorize?response_type=code&state=s'));
    expect(authorize.statusCode).toBe(302);
    expect(authorize.headers.location).toBe('http://127.0.0.1:1/cb?code=c1&state=s');
    await authorize.body.dump();
    const token = await fetch(gw.url('/token'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic Y2xpZW50OnNlY3JldA==' }, body: 'grant_type=authorization_code&code=c1' });
    expect(await token.json()).toEqual({ at: '/token' });
    expect((await fetch(gw.url('/register'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"client_name":"x"}' })).status).toBe(200);
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/openid-configuration/legacy/mcp']) {
      expect((await fetch(gw.url(path))).status, path).toBe(200);
    }
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /authorize?response_type=code&state=s',
      'POST /token',
      'POST /register',
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/openid-configuration',
      'GET /.well-known/openid-configuration/mcp',
    ]);
    // The token endpoint gets the client's own authentication and body, never the operator's upstream header.
    expect(seen[1]).toMatchObject({ body: 'grant_type=authorization_code&code=c1', headers: { authorization: 'Basic Y2xpZW50OnNlY3JldA==', 'content-type': 'application/x-www-form-urlencoded' } });
  });

  // Review of config, reload and auth (2026-12-07): under the gateway's own token, the three endpoints (which take
  // bodies) were open passthroughs; and a document under the upstream's path got the client's Authorization.
  it('puts the default endpoints behind the gateway token under auth, and sends no client Authorization for documents', async () => {
    const seen: { method: string; url: string; authorization: string | undefined }[] = [];
    const up = await listen((req, res) => {
      void readBody(req).then(() => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('guarded', `${up.origin}/mcp`)], { auth: { bearerTokens: ['gateway-token'] } }));
    for (const endpoint of ['/token', '/register', '/authorize']) {
      const refused = await fetch(gw.url(endpoint), { method: 'POST', body: 'x=1' });
      expect(refused.status, endpoint).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(seen).toEqual([]);
    expect((await fetch(gw.url('/token'), { method: 'POST', headers: { authorization: 'Bearer gateway-token' }, body: 'x=1' })).status).toBe(200);
    // A document under the upstream's path: open to anyone, and the client's Authorization is not passed on.
    expect((await fetch(gw.url('/guarded/mcp/.well-known/anything'), { headers: { authorization: 'Bearer client-own' } })).status).toBe(200);
    expect(seen).toEqual([
      { method: 'POST', url: '/token', authorization: undefined },
      { method: 'GET', url: '/mcp/.well-known/anything', authorization: undefined },
    ]);
  });

  it('never lets a Host with a quote add parameters to a rewritten challenge (the Host check off)', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then(() => res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="http://${req.headers.host}/.well-known/oauth-protected-resource/mcp"`, 'content-type': 'application/json' }).end('{}'));
    });
    // allowedHosts "*": what a public bind without allowedHosts does, on the loopback address a test can use.
    const gw = await startGateway(gatewayConfig([httpUpstream('secure', `${up.origin}/mcp`)], { allowedHosts: ['*'] }));
    const challenge = async (host: string): Promise<unknown> => {
      const res = await request(gw.url('/secure/mcp'), { method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      await res.body.dump();
      expect(res.statusCode).toBe(401);
      return res.headers['www-authenticate'];
    };
    expect(await challenge('gw.example:8443')).toBe('Bearer resource_metadata="http://gw.example:8443/.well-known/oauth-protected-resource/secure/mcp"');
    // Not a host: nothing names the gateway, and the upstream's own challenge passes as it was.
    expect(await challenge('x",error="insufficient_scope",scope="admin')).toBe(`Bearer resource_metadata="http://${new URL(up.origin).host}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('leaves a root endpoint to an upstream served at that path', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":1,"result":{"at":"${req.url ?? ''}"}}`));
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('token', `${up.origin}/mcp`, { path: '/token' })]));
    const mcp = await fetch(gw.url('/token'), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(await mcp.json()).toMatchObject({ result: { at: '/mcp' } });
    expect((await fetch(gw.url('/register'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
  });

  it('rewrites legacy SSE challenges on the GET stream and on a POSTed message', async () => {
    const up = await listen((req, res) => {
      const challenge = { 'www-authenticate': `Bearer resource_metadata="http://${req.headers.host}/.well-known/oauth-protected-resource/sse"`, 'content-type': 'application/json' };
      if (req.headers.authorization !== 'Bearer good') return void res.writeHead(401, challenge).end('{"error":"invalid_token"}');
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: endpoint\ndata: /messages?sessionId=1\n\n');
      res.writeHead(202).end();
    });
    const gw = await startGateway(gatewayConfig([sseUpstream('old', `${up.origin}/sse`, { path: '/old/sse', timeoutMs: 5000 })]));
    const expected = `Bearer resource_metadata="${gw.url('/.well-known/oauth-protected-resource/old/sse')}"`;
    const denied = await fetch(gw.url('/old/sse'), { headers: { accept: 'text/event-stream' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe(expected);

    const stream = await request(gw.url('/old/sse'), { headers: { accept: 'text/event-stream', authorization: 'Bearer good' } });
    const reader = (stream.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const endpoint = /data: (\S+)/.exec(String((await reader.next()).value))?.[1];
    expect(endpoint).toMatch(/^\/old\/sse\/message\?sessionId=/);
    expect(await challengeOf(gw.url(endpoint!), 'POST', { authorization: 'Bearer expired' })).toBe(expected);
    stream.body.destroy();
  });
});
