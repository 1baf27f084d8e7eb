import { describe, expect, it } from 'vitest';
import {
  advertisedMetadataPath,
  identifiesUpstream,
  metadataCandidates,
  publicResource,
  pointChallengeAt,
  rewriteMetadataDocument,
} from '../../../../src/http/oauth/metadata.js';
import { wellKnownPath } from '../../../../src/config/routes.js';

const UP = 'http://127.0.0.1:9000';

describe('publicResource', () => {
  it('builds the URL the client connected to from Host and X-Forwarded-Proto, and its RFC 9728 metadata URL', () => {
    expect(publicResource('/weather/mcp', undefined, { host: '127.0.0.1:8080', forwardedProto: undefined })).toEqual({
      resource: 'http://127.0.0.1:8080/weather/mcp',
      metadataUrl: 'http://127.0.0.1:8080/.well-known/oauth-protected-resource/weather/mcp',
    });
    expect(publicResource('/mcp/', undefined, { host: 'mcp.example.com', forwardedProto: 'https, http' })).toEqual({
      resource: 'https://mcp.example.com/mcp/',
      metadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    });
    // Only http/https are taken from the header.
    expect(publicResource('/m', undefined, { host: 'h', forwardedProto: 'javascript' })?.resource).toBe('http://h/m');
  });

  it('prefers publicUrl, and refuses a Host that is not a bare authority', () => {
    expect(publicResource('/weather/mcp', 'https://gw.example.com/tools/weather#x', { host: 'evil.test', forwardedProto: 'http' })).toEqual({
      resource: 'https://gw.example.com/tools/weather',
      metadataUrl: 'https://gw.example.com/.well-known/oauth-protected-resource/tools/weather',
    });
    for (const host of [undefined, '', 'a/b', 'evil.test@h', 'h?x', 'a b', 'a"b', 'a\\b', 'a<b', 'h\u00e9']) {
      expect(publicResource('/m', undefined, { host, forwardedProto: undefined }), String(host)).toBeUndefined();
    }
  });
});

describe('WWW-Authenticate challenges', () => {
  const gw = 'http://127.0.0.1:8080/.well-known/oauth-protected-resource/weather/mcp';

  it('points resource_metadata on the upstream origin at the gateway, keeping every other parameter', () => {
    expect(pointChallengeAt(`Bearer error="invalid_token", resource_metadata="${UP}/.well-known/oauth-protected-resource/mcp", scope="a b"`, UP, gw)).toBe(
      `Bearer error="invalid_token", resource_metadata="${gw}", scope="a b"`,
    );
    expect(pointChallengeAt(`Bearer resource_metadata=${UP}/custom.json`, UP, gw)).toBe(`Bearer resource_metadata="${gw}"`);
    expect(pointChallengeAt('Bearer realm="x"', UP, gw)).toBe('Bearer realm="x"');
    // Another origin's document: left for the client to judge.
    const foreign = 'Bearer resource_metadata="https://elsewhere.test/.well-known/oauth-protected-resource"';
    expect(pointChallengeAt(foreign, UP, gw)).toBe(foreign);
  });

  it('reads the advertised location on the upstream origin only', () => {
    expect(advertisedMetadataPath(`Bearer resource_metadata="${UP}/custom/metadata/location.json?v=1"`, UP)).toBe('/custom/metadata/location.json?v=1');
    expect(advertisedMetadataPath('Bearer resource_metadata="http://127.0.0.1:9001/x"', UP)).toBeUndefined();
    expect(advertisedMetadataPath('Bearer resource_metadata="not a url"', UP)).toBeUndefined();
    expect(advertisedMetadataPath('Bearer', UP)).toBeUndefined();
  });
});

describe('protected-resource metadata documents', () => {
  const upstream = new URL(`${UP}/mcp`);

  it('identify the upstream by origin and path prefix, as a client checks the URL it connected to', () => {
    expect(identifiesUpstream(`${UP}/mcp`, upstream)).toBe(true);
    expect(identifiesUpstream(`${UP}/mcp/`, upstream)).toBe(true);
    expect(identifiesUpstream(UP, upstream)).toBe(true);
    expect(identifiesUpstream(`${UP}/mc`, upstream)).toBe(false);
    expect(identifiesUpstream(`${UP}/mcp/sub`, upstream)).toBe(false);
    expect(identifiesUpstream('https://evil.example.com/mcp', upstream)).toBe(false);
    expect(identifiesUpstream('/mcp', upstream)).toBe(false);
    expect(identifiesUpstream(7, upstream)).toBe(false);
  });

  it('get the public resource in place, or pass unchanged when they name something else', () => {
    const doc = JSON.stringify({ resource: `${UP}/mcp`, authorization_servers: ['https://as.test'], scopes_supported: ['a'] });
    expect(rewriteMetadataDocument(doc, upstream, 'https://gw.test/weather/mcp')).toBe(
      '{"resource":"https://gw.test/weather/mcp","authorization_servers":["https://as.test"],"scopes_supported":["a"]}',
    );
    expect(rewriteMetadataDocument('{"resource":"https://evil.example.com/mcp"}', upstream, 'https://gw.test/m')).toBeUndefined();
    expect(rewriteMetadataDocument('[1]', upstream, 'https://gw.test/m')).toBeUndefined();
    expect(rewriteMetadataDocument('not json', upstream, 'https://gw.test/m')).toBeUndefined();
  });

  it('are looked for where the upstream says, then path-aware, then at the root', () => {
    expect(metadataCandidates(new URL(`${UP}/base/mcp/?k=1`), '/custom.json')).toEqual([
      '/custom.json',
      '/.well-known/oauth-protected-resource/base/mcp?k=1',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(metadataCandidates(new URL(`${UP}/`), undefined)).toEqual(['/.well-known/oauth-protected-resource']);
    expect(wellKnownPath('openid-configuration', '/tenant1/')).toBe('/.well-known/openid-configuration/tenant1');
  });
});
