import { describe, expect, it } from 'vitest';
import { credentialKey, headerValue, mediaType, toClientHeaders, toUpstreamHeaders } from '../../../src/upstream/headers.js';

const base = { host: 'upstream.test:9000', configured: {}, dropAuthorization: false };

describe('toUpstreamHeaders', () => {
  it('forwards MCP and other end-to-end headers untouched', () => {
    const out = toUpstreamHeaders(
      {
        'mcp-session-id': 's1',
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': 'e9',
        'mcp-method': 'tools/call',
        'mcp-name': 'get_weather',
        'mcp-param-city': 'Paris',
        authorization: 'Bearer client',
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'x-custom': 'yes',
      },
      base,
    );
    expect(out).toEqual({
      'mcp-session-id': 's1',
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': 'e9',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_weather',
      'mcp-param-city': 'Paris',
      authorization: 'Bearer client',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'x-custom': 'yes',
      host: 'upstream.test:9000',
      'accept-encoding': 'identity',
    });
  });

  it('strips hop-by-hop headers, Proxy-*, and whatever Connection names', () => {
    const out = toUpstreamHeaders(
      {
        connection: 'keep-alive, X-Hop',
        'x-hop': '1',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        trailer: 'x',
        'transfer-encoding': 'chunked',
        upgrade: 'websocket',
        'proxy-authorization': 'Basic x',
        'proxy-foo': 'bar',
        host: 'gateway.test',
        'content-length': '12',
        'accept-encoding': 'gzip',
        'x-end': 'kept',
      },
      base,
    );
    expect(out).toEqual({ 'x-end': 'kept', host: 'upstream.test:9000', 'accept-encoding': 'identity' });
  });

  it("adds the upstream's configured headers over the client's, and drops the gateway's own Authorization when asked", () => {
    const out = toUpstreamHeaders(
      { authorization: 'Bearer gateway-token', 'x-tenant': 'client' },
      { host: 'u', configured: { Authorization: 'Bearer upstream-token', 'X-Tenant': 'configured' }, dropAuthorization: true },
    );
    expect(out.authorization).toBe('Bearer upstream-token');
    expect(out['x-tenant']).toBe('configured');
    const dropped = toUpstreamHeaders({ authorization: 'Bearer gateway-token' }, { host: 'u', configured: {}, dropAuthorization: true });
    expect(dropped.authorization).toBeUndefined();
  });
});

describe('toClientHeaders', () => {
  it('keeps end-to-end headers (WWW-Authenticate, Mcp-Session-Id, Set-Cookie lists) and strips hop-by-hop', () => {
    const out = toClientHeaders(
      {
        'www-authenticate': 'Bearer resource_metadata="x"',
        'mcp-session-id': 's2',
        'set-cookie': ['a=1', 'b=2'],
        connection: 'close',
        'transfer-encoding': 'chunked',
        'keep-alive': 'timeout=5',
        'content-length': '10',
      },
      { dropLength: false },
    );
    expect(out).toEqual({ 'www-authenticate': 'Bearer resource_metadata="x"', 'mcp-session-id': 's2', 'set-cookie': ['a=1', 'b=2'], 'content-length': '10' });
  });

  it('drops Content-Length when the body may change', () => {
    expect(toClientHeaders({ 'content-length': '10', 'content-type': 'application/json' }, { dropLength: true })).toEqual({ 'content-type': 'application/json' });
  });
});

describe('mediaType and headerValue', () => {
  it('parses the media type instead of substring-matching', () => {
    expect(mediaType('Text/Event-Stream; charset=utf-8')).toBe('text/event-stream');
    expect(mediaType('application/json')).toBe('application/json');
    expect(mediaType('application/jsonx')).toBe('application/jsonx');
    expect(mediaType('text/plain; note="application/json"')).toBe('text/plain');
    expect(mediaType(undefined)).toBeUndefined();
    expect(mediaType('')).toBeUndefined();
  });

  it('takes the first of repeated values', () => {
    expect(headerValue({ a: ['1', '2'] }, 'a')).toBe('1');
    expect(headerValue({ a: '3' }, 'a')).toBe('3');
    expect(headerValue({}, 'a')).toBeUndefined();
  });
});

describe('credentialKey', () => {
  it('keeps every forwarded header that may carry an identity, canonically, and nothing else', () => {
    const key = credentialKey({ 'x-api-key': 'alice', cookie: 's=1', authorization: 'Bearer a', 'content-type': 'application/json', accept: '*/*', traceparent: 't', 'x-request-id': 'r', 'mcp-protocol-version': '2026-07-28', 'x-forwarded-for': '10.0.0.1', 'user-agent': 'ua', connection: 'keep-alive' }, false);
    expect(key).toBe('authorization:Bearer a\ncookie:s=1\nx-api-key:alice');
    // Order of the headers does not matter; values do.
    expect(credentialKey({ cookie: 's=1', 'x-api-key': 'alice', authorization: 'Bearer a' }, false)).toBe(key);
    expect(credentialKey({ cookie: 's=2', 'x-api-key': 'alice', authorization: 'Bearer a' }, false)).not.toBe(key);
  });
  it('leaves out the gateway`s own token, and hop-by-hop headers named by Connection', () => {
    expect(credentialKey({ authorization: 'Bearer gateway', 'x-tenant': 't1' }, true)).toBe('x-tenant:t1');
    expect(credentialKey({ connection: 'x-hop', 'x-hop': 'a' }, false)).toBeUndefined();
    expect(credentialKey({ accept: '*/*' }, false)).toBeUndefined();
  });
});
