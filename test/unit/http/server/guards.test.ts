import { describe, expect, it } from 'vitest';
import { bearerMatches, hostAllowed, hostChecked, isLoopbackAddress, originAllowed } from '../../../../src/http/server/guards.js';
import { gatewayConfig, httpUpstream } from '../../../helpers/config.js';
import { startGateway } from '../../../helpers/gateway.js';
import { listen, readBody } from '../../../helpers/listen.js';

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
  it('allows requests without Origin, loopback origins, listed origins and nothing else', () => {
    expect(originAllowed(undefined, [])).toBe(true);
    for (const loopback of ['http://localhost:6274', 'https://localhost', 'http://127.0.0.1:8080', 'http://127.9.8.7', 'http://[::1]:3000']) {
      expect(originAllowed(loopback, []), loopback).toBe(true);
    }
    // An empty list is no longer "no check": a foreign origin needs listing.
    expect(originAllowed('https://evil.test', [])).toBe(false);
    expect(originAllowed('https://a.test', ['https://a.test'])).toBe(true);
    expect(originAllowed('HTTPS://A.test:443', ['https://a.test/'])).toBe(true);
    expect(originAllowed('https://a.test:8443', ['https://a.test'])).toBe(false);
    expect(originAllowed('https://evil.test', ['https://a.test'])).toBe(false);
    expect(originAllowed('http://localhost.evil.test', [])).toBe(false);
    expect(originAllowed('file://localhost', [])).toBe(false);
    expect(originAllowed('null', [])).toBe(false);
    expect(originAllowed('null', ['null'])).toBe(true);
    expect(originAllowed('https://evil.test', ['*'])).toBe(true);
  });
});

describe('hostAllowed / hostChecked', () => {
  it('accepts loopback names on any port and listed names, and nothing else', () => {
    for (const host of ['localhost', 'localhost:8080', 'LOCALHOST:1', '127.0.0.1', '127.0.0.1:9', '127.3.2.1:80', '[::1]', '[::1]:8080', 'localhost.:80']) {
      expect(hostAllowed(host, []), host).toBe(true);
    }
    for (const host of ['evil.example.com', 'evil.example.com:8080', 'localhost.evil.test', '10.0.0.1', '[::2]', '', 'user@localhost', 'localhost/x', 'localhost:x']) {
      expect(hostAllowed(host, []), host).toBe(false);
    }
    expect(hostAllowed(undefined, [])).toBe(false);
  });

  it('matches allowedHosts by name (any port), name:port, *.suffix and *', () => {
    expect(hostAllowed('mcp.example.com:443', ['mcp.example.com'])).toBe(true);
    expect(hostAllowed('MCP.example.com', ['mcp.example.com'])).toBe(true);
    expect(hostAllowed('mcp.example.com:8443', ['mcp.example.com:443'])).toBe(false);
    expect(hostAllowed('mcp.example.com:8443', ['mcp.example.com:8443'])).toBe(true);
    expect(hostAllowed('a.b.svc.cluster.local:8080', ['*.svc.cluster.local'])).toBe(true);
    expect(hostAllowed('svc.cluster.local', ['*.svc.cluster.local'])).toBe(false);
    expect(hostAllowed('evilsvc.cluster.local', ['*.svc.cluster.local'])).toBe(false);
    expect(hostAllowed('[fd00::5]:8080', ['[fd00::5]'])).toBe(true);
    expect(hostAllowed('anything.test', ['*'])).toBe(true);
  });

  it('checks Host when bound to loopback or when allowedHosts is set, unless it lists *', () => {
    expect(hostChecked('127.0.0.1', [])).toBe(true);
    expect(hostChecked('127.0.0.2', [])).toBe(true);
    expect(hostChecked('::1', [])).toBe(true);
    expect(hostChecked('::ffff:127.0.0.1', [])).toBe(true);
    expect(hostChecked('localhost', [])).toBe(true);
    expect(hostChecked('0.0.0.0', [])).toBe(false);
    expect(hostChecked('::', [])).toBe(false);
    expect(hostChecked('192.168.1.10', [])).toBe(false);
    expect(hostChecked('0.0.0.0', ['mcp.example.com'])).toBe(true);
    expect(hostChecked('127.0.0.1', ['*'])).toBe(false);
  });

  it('knows loopback addresses', () => {
    expect(isLoopbackAddress('127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('127.255.0.1')).toBe(true);
    expect(isLoopbackAddress('::1')).toBe(true);
    expect(isLoopbackAddress('128.0.0.1')).toBe(false);
    expect(isLoopbackAddress('0.0.0.0')).toBe(false);
    expect(isLoopbackAddress('::')).toBe(false);
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
