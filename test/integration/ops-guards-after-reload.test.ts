/**
 * The guards end to end through `serve`, before and after a reload changes them: bearer tokens (401 with
 * WWW-Authenticate; a rotated token works at once, the old one no more), the Origin allow-list (403), the
 * request body limit (413, fixed at start), the result limit (a clean JSON-RPC error, never truncated JSON,
 * lowered by the reload), and what crosses to the upstream: never the gateway's own token, the upstream's
 * configured header, X-Forwarded-* as the client sent them (hop-by-hop stripping: test/unit/http/headers.test.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listen, readBody } from '../helpers/listen.js';
import { startServe } from '../helpers/serve.js';

const BIG_TEXT = 'x'.repeat(3000);

function config(url: string, token: string, maxResultBytes: number, origin: string): string {
  return `
auth: { bearerTokens: [${token}] }
allowedOrigins: [${origin}]
limits: { maxRequestBytes: 2048, maxResultBytes: ${maxResultBytes} }
upstreams:
  up:
    url: ${url}
    headers: { Authorization: Bearer upstream-own-token }
`;
}

describe('guards before and after a reload', () => {
  it('enforce tokens, origins and limits, live, and forward only what belongs upstream', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const upstream = await listen((req, res) => {
      void readBody(req).then((body) => {
        seen.push(req.headers);
        const { id } = JSON.parse(body.toString('utf8')) as { id: number };
        const text = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: BIG_TEXT }] } });
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      });
    });
    const gw = await startServe(config(`${upstream.origin}/mcp`, 'first-token', 1_000_000, 'https://app.test'));
    let id = 0;
    const call = (headers: Record<string, string>, body?: string) =>
      fetch(`${gw.origin}/up/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: body ?? JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 't' } }),
      });

    const anonymous = await call({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call({ authorization: 'Bearer first-token', origin: 'https://evil.test' })).status).toBe(403);

    const ok = await call({
      authorization: 'Bearer first-token',
      origin: 'https://app.test',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'mcp.example.test',
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { content: { text: string }[] } }).result.content[0]?.text).toBe(BIG_TEXT);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer upstream-own-token',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'mcp.example.test',
    });
    expect(JSON.stringify(seen[0])).not.toContain('first-token');

    const tooBig = await call({ authorization: 'Bearer first-token' }, JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping', params: { pad: 'p'.repeat(4096) } }));
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'RETROFIT_ERR_BODY_TOO_LARGE' } } });

    // Rotate the token, change the allowed origin, lower the result limit below the upstream's answer.
    gw.write(config(`${upstream.origin}/mcp`, 'second-token', 1000, 'https://other.test'));
    expect(await gw.sighup()).toMatchObject({ ok: true, restartRequired: [] });

    expect((await call({ authorization: 'Bearer first-token' })).status).toBe(401);
    expect((await call({ authorization: 'Bearer second-token', origin: 'https://app.test' })).status).toBe(403);
    const limited = await call({ authorization: 'Bearer second-token', origin: 'https://other.test' });
    expect(limited.status).toBe(502);
    const text = await limited.text();
    expect(JSON.parse(text)).toEqual({
      jsonrpc: '2.0',
      id,
      error: expect.objectContaining({ message: 'upstream "up" sent a result larger than 1000 bytes', data: expect.objectContaining({ code: 'RETROFIT_ERR_RESULT_TOO_LARGE' }) }) as unknown,
    });
    expect(text).not.toContain('xxxx');
  });
});
