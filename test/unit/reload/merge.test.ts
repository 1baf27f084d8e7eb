import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, type StdioUpstreamConfig } from '../../../src/config/types.js';
import { mergeReload } from '../../../src/reload/merge.js';
import { gatewayConfig, httpUpstream } from '../../helpers/config.js';

const stdio = (name: string, extra: Partial<StdioUpstreamConfig> = {}): StdioUpstreamConfig => ({
  kind: 'stdio',
  name,
  path: `/${name}/mcp`,
  timeoutMs: 1000,
  tools: {},
  command: 'node',
  args: ['server.js'],
  env: { KEY: 'old-secret-value' },
  bridge: true,
  share: false,
  idleTimeoutMs: 900_000,
  ...extra,
} as StdioUpstreamConfig);

describe('mergeReload', () => {
  it('applies tools, headers, timeouts, auth and result limits; keeps start-fixed fields and reports them', () => {
    const running = gatewayConfig([httpUpstream('web', 'http://a.test/mcp', { headers: { 'x-k': 'old' } }), stdio('local')], { secrets: ['old-secret-value'] });
    const next = gatewayConfig(
      [
        httpUpstream('web', 'http://b.test/mcp', { headers: { 'x-k': 'new' }, timeoutMs: 5, tools: { echo: { outputSchema: { type: 'object' } } } }),
        stdio('local', { args: ['other.js'], env: { KEY: 'new-secret-value' }, timeoutMs: 7 }),
        httpUpstream('added', 'http://c.test/mcp'),
      ],
      { auth: { bearerTokens: ['t0ken'] }, limits: { ...DEFAULT_LIMITS, maxRequestBytes: 1, maxResultBytes: 2 }, listen: { host: '0.0.0.0', port: 1 }, secrets: ['new-secret-value'] },
    );
    const merged = mergeReload(running, next);
    const { config, policies } = merged.loaded;
    expect(config.upstreams.web).toMatchObject({ url: 'http://a.test/mcp', headers: { 'x-k': 'new' }, timeoutMs: 5 });
    expect(config.upstreams.local).toMatchObject({ args: ['server.js'], env: { KEY: 'old-secret-value' }, timeoutMs: 7 });
    expect(Object.keys(config.upstreams)).toEqual(['web', 'local']);
    expect(config.auth).toEqual({ bearerTokens: ['t0ken'] });
    expect(config.limits).toEqual({ ...running.config.limits, maxResultBytes: 2 });
    expect(config.listen).toEqual(running.config.listen);
    expect(policies.get('web')?.resolve('echo')).toBeDefined();
    expect(merged.toolsChanged).toEqual(['web']);
    expect(merged.secrets).toEqual(expect.arrayContaining(['old-secret-value', 'new-secret-value']));
    expect(merged.restartRequired).toEqual([
      'listen changed (127.0.0.1:0 kept)',
      `limits.maxRequestBytes changed (${running.config.limits.maxRequestBytes} kept)`,
      'upstream "web": url changed (running values kept)',
      'upstream "local": args, env changed (running values kept)',
      'upstream "added" added (not served until restart)',
    ]);
    expect(Object.isFrozen(config.upstreams.web)).toBe(true);
  });

  it('keeps a removed or re-kinded upstream whole, with its policy and what it learned natively', () => {
    const running = gatewayConfig([httpUpstream('web', 'http://a.test/mcp'), httpUpstream('gone', 'http://g.test/mcp')]);
    const next = gatewayConfig([stdio('web')], { defaults: { onInvalid: 'passthrough', legacyRoots: 'wrap', coerce: true } });
    const merged = mergeReload(running, next);
    expect(merged.loaded.config.upstreams.web).toBe(running.config.upstreams.web);
    expect(merged.loaded.config.upstreams.gone).toBe(running.config.upstreams.gone);
    expect(merged.loaded.policies.get('web')).toBe(running.policies.get('web'));
    expect(merged.restartRequired).toEqual(['upstream "web" changed kind (still served as http)', 'upstream "gone" removed (still served)']);
    // Kept upstreams are not reported as changed even though the defaults changed: their policy is the old one.
    expect(merged.toolsChanged).toEqual([]);
  });

  it('carries native memory over, and defaults changes count as tool changes', () => {
    const running = gatewayConfig([httpUpstream('web', 'http://a.test/mcp')]);
    const next = gatewayConfig([httpUpstream('web', 'http://a.test/mcp')], { defaults: { onInvalid: 'error', legacyRoots: 'drop', coerce: true } });
    const merged = mergeReload(running, next);
    expect(merged.loaded.policies.get('web')?.native).toBe(running.policies.get('web')?.native);
    expect(merged.toolsChanged).toEqual(['web']);
    expect(merged.restartRequired).toEqual([]);
  });

  it('counts a change to the client profiles as a tool change of every upstream it keeps (what a client is listed may differ)', () => {
    const running = gatewayConfig([httpUpstream('web', 'http://a.test/mcp'), stdio('local')]);
    const next = gatewayConfig([httpUpstream('web', 'http://a.test/mcp'), stdio('local')], { clients: [{ name: 'rev', match: { name: 'rev' }, outputSchema: 'strip', schemaDialect: 'keep', textFallback: false, inputSchemaRoot: 'keep' }] });
    expect(mergeReload(running, next).toolsChanged).toEqual(['web', 'local']);
    expect(mergeReload(next, next).toolsChanged).toEqual([]);
  });
});
