/**
 * Browser clients (review of the HTTP edge, 2026-12-07): a listed origin could never get past its preflight —
 * OPTIONS got 405 on every upstream path. Now a `url:` upstream's preflight is passed to the upstream (which
 * answers CORS itself, without the gateway's token or the upstream's configured headers), and on a session the
 * gateway holds (stdio here) the gateway answers it, and lets an admitted origin read its answers.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const ORIGIN = 'https://app.example.com';
const TOKEN = 'gateway-secret';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser', version: '1' } } };

/** What a browser sends before a JSON POST carrying MCP headers. */
function preflight(url: string, origin = ORIGIN): Promise<Response> {
  return fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' } });
}

describe('browser clients (CORS)', () => {
  it('on a gateway-held session: the preflight is answered, an admitted origin reads every answer, a foreign one nothing', async () => {
    const gw = await startStdioGateway({ config: { allowedOrigins: [ORIGIN], auth: { bearerTokens: [TOKEN] } } });

    const pre = await preflight(gw.url);
    expect(pre.status).toBe(204);
    expect(Object.fromEntries([...pre.headers].filter(([k]) => k.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': ORIGIN,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
      'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, www-authenticate',
      'access-control-max-age': '600',
    });

    const post = (headers: Record<string, string>) => fetch(gw.url, { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(INIT) });
    // Without the gateway's token: 401, and the browser may read it (and its challenge).
    const refused = await post({});
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const answered = await post({ authorization: `Bearer ${TOKEN}` });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(answered.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    expect(answered.headers.get('mcp-session-id')).toBeTruthy();
    await answered.text();

    // An origin the guards refuse gets 403, which it may not read.
    const foreign = await preflight(gw.url, 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    // A request without Origin (no browser) gets no CORS headers.
    const plain = await fetch(gw.url, { method: 'OPTIONS' });
    expect(plain.status).toBe(204);
    expect(plain.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    await gw.close();
  });

  it('on a url: upstream: the preflight is the upstream\'s to answer, without the gateway\'s token or its configured headers', async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const up = await listen((req, res) => {
      seen.push({ method: req.method, ...req.headers });
      res.writeHead(204, { 'access-control-allow-origin': req.headers.origin ?? '*', 'access-control-allow-methods': 'GET, POST, DELETE', 'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version' }).end();
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${up.origin}/mcp`, { headers: { 'x-api-key': 'operator-credential' } })], { allowedOrigins: [ORIGIN], auth: { bearerTokens: [TOKEN] } }));
    const pre = await preflight(gw.url('/up/mcp'));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(pre.headers.get('access-control-allow-headers')).toBe('authorization, content-type, mcp-protocol-version');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'OPTIONS', origin: ORIGIN, 'access-control-request-method': 'POST' });
    expect(seen[0]).not.toHaveProperty('x-api-key');
    // An origin the guards refuse never reaches the upstream.
    expect((await preflight(gw.url('/up/mcp'), 'https://evil.example')).status).toBe(403);
    expect(seen).toHaveLength(1);
    // The gateway's own 401 is no upstream answer: the admitted origin may still read it and its challenge.
    const post = (origin: string) => fetch(gw.url('/up/mcp'), { method: 'POST', headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(INIT) });
    const refused = await post(ORIGIN);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(refused.headers.get('access-control-expose-headers')).toContain('www-authenticate');
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    const foreign = await post('https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(seen).toHaveLength(1);
  });
});
