import { describe, expect, it } from 'vitest';
import { bearerMatches, originAllowed } from '../../../src/http/guards.js';
import { gatewayConfig, httpUpstream } from '../../helpers/config.js';
import { startGateway } from '../../helpers/gateway.js';
import { listen, readBody } from '../../helpers/listen.js';

describe('bearerMatches', () => {
  it('accepts any configured token and nothing else', () => {
    const tokens = ['alpha-token', 'beta-token'];
    expect(bearerMatches('Bearer alpha-token', tokens)).toBe(true);
    expect(bearerMatches('bearer beta-token', tokens)).toBe(true);
    expect(bearerMatches('Bearer alpha-toke', tokens)).toBe(false);
    expect(bearerMatches('Bearer alpha-token-and-more', tokens)).toBe(false);
    expect(bearerMatches('Basic alpha-token', tokens)).toBe(false);
    expect(bearerMatches('Bearer ', tokens)).toBe(false);
    expect(bearerMatches(undefined, tokens)).toBe(false);
    expect(bearerMatches('Bearer x', [])).toBe(false);
  });
});

describe('originAllowed', () => {
  it('allows requests without Origin, everything with an empty list, and only listed origins otherwise', () => {
    expect(originAllowed(undefined, ['https://a.test'])).toBe(true);
    expect(originAllowed('https://evil.test', [])).toBe(true);
    expect(originAllowed('https://a.test', ['https://a.test'])).toBe(true);
    expect(originAllowed('https://evil.test', ['https://a.test'])).toBe(false);
  });
});

describe('guards in front of an upstream', () => {
  it('401s without the gateway token, 403s a foreign Origin, and never forwards the gateway token upstream', async () => {
    const seen: (string | undefined)[] = [];
    const upstream = await listen((req, res) => {
      void readBody(req).then(() => {
        seen.push(req.headers.authorization);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
      });
    });
    const loaded = gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`, { headers: { Authorization: 'Bearer upstream-secret' } })], {
      auth: { bearerTokens: ['gateway-secret'] },
      allowedOrigins: ['https://app.test'],
    });
    const gw = await startGateway(loaded);
    const send = (headers: Record<string, string>) =>
      fetch(gw.url('/up/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });

    const anonymous = await send({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.json()).toMatchObject({ error: { data: { code: 'RETROFIT_ERR_UNAUTHORIZED' } } });
    expect((await send({ authorization: 'Bearer wrong' })).status).toBe(401);

    const foreign = await send({ authorization: 'Bearer gateway-secret', origin: 'https://evil.test' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { message: 'origin "https://evil.test" is not allowed' } });

    expect((await send({ authorization: 'Bearer gateway-secret', origin: 'https://app.test' })).status).toBe(200);
    expect((await send({ authorization: 'Bearer gateway-secret' })).status).toBe(200);
    expect(seen).toEqual(['Bearer upstream-secret', 'Bearer upstream-secret']);

    // Operations endpoints are not behind the token.
    expect((await fetch(gw.url('/healthz'))).status).toBe(200);
  });
});
