import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../../../helpers/config.js';
import { startGateway } from '../../../helpers/gateway.js';
import { listen, readBody } from '../../../helpers/listen.js';

describe('request bodies', () => {
  it('forwards the original bytes, rejects bad JSON (400) and non-JSON (415) without contacting the upstream', async () => {
    const received: string[] = [];
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        received.push(body.toString());
        res.writeHead(202).end();
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${up.origin}/mcp`)]));
    const post = (body: string, type = 'application/json') =>
      fetch(gw.url('/up/mcp'), { method: 'POST', headers: { 'content-type': type, accept: 'application/json, text/event-stream' }, body });

    // Odd spacing, key order and unicode escapes survive: the body is never re-serialised.
    const original = '{ "method":"notifications/initialized",\n  "jsonrpc" : "2.0", "params": {"x":"\\u00e9"} }';
    const accepted = await post(original, 'application/json; charset=utf-8');
    expect(accepted.status).toBe(202);

    const bad = await post('{"jsonrpc":"2.0",');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ id: null, error: { code: -32700, data: { code: 'RETROFIT_ERR_PARSE' } } });

    const text = await post('hello', 'text/plain');
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: { data: { code: 'RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE' } } });

    // A UTF-8 byte order mark is ignored, as the SDK servers ignore it; the upstream gets the bytes as they came.
    const withBom = `\ufeff${original}`;
    const bom = await post(withBom);
    expect(bom.status).toBe(202);

    expect(received).toEqual([original, withBom]);
  });

  it('passes OAuth discovery documents and the upstream status codes through untouched', async () => {
    const paths: string[] = [];
    const up = await listen((req, res) => {
      paths.push(req.url ?? '');
      if (req.url?.includes('.well-known')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"resource":"${req.url}"}`);
      } else {
        res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="https://u/.well-known/oauth-protected-resource"', 'content-type': 'application/json' }).end('{}');
      }
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${up.origin}/base/mcp?k=1`, { path: '/tenant/mcp' })]));
    const unauth = await fetch(gw.url('/tenant/mcp?x=2'), { method: 'DELETE', headers: { 'mcp-session-id': 's' } });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toBe('Bearer resource_metadata="https://u/.well-known/oauth-protected-resource"');
    expect(await (await fetch(gw.url('/tenant/mcp/.well-known/oauth-protected-resource'))).json()).toEqual({ resource: '/base/mcp/.well-known/oauth-protected-resource?k=1' });
    expect((await fetch(gw.url('/tenant/mcp/.well-known/oauth-authorization-server/x'))).status).toBe(200);
    // RFC 9728 metadata: the gateway asks the upstream where it is (a ping it answers 401; its challenge names
    // another origin, so it is not followed), then takes the path-aware location. A `resource` that does not
    // name the upstream stays as it is (rewriting: test/integration/oauth-*.test.ts).
    expect(await (await fetch(gw.url('/.well-known/oauth-protected-resource/tenant/mcp'))).json()).toEqual({ resource: '/.well-known/oauth-protected-resource/base/mcp?k=1' });
    expect(paths).toEqual([
      '/base/mcp?k=1&x=2',
      '/base/mcp/.well-known/oauth-protected-resource?k=1',
      '/base/mcp/.well-known/oauth-authorization-server/x?k=1',
      '/base/mcp?k=1',
      '/.well-known/oauth-protected-resource/base/mcp?k=1',
    ]);
  });
});
