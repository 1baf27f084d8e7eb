/**
 * Build a LoadedConfig in code (no YAML), compiling policies the way the loader does.
 */
import type { LoadedConfig } from '../../src/config/load.js';
import { DEFAULTS, type GatewayConfig, type HttpUpstreamConfig, type ToolConfig, type UpstreamConfig } from '../../src/config/types.js';
import { compileUpstreamPolicy } from '../../src/policy/compile.js';
import type { UpstreamPolicy } from '../../src/policy/types.js';

/** An HTTP upstream from its url and a few optional settings. */
export function httpUpstream(
  name: string,
  url: string,
  extra: { path?: string; timeoutMs?: number; headers?: Record<string, string>; tools?: Record<string, ToolConfig>; bridge?: boolean } = {},
): HttpUpstreamConfig {
  return {
    kind: 'http',
    name,
    url,
    path: extra.path ?? `/${name}/mcp`,
    timeoutMs: extra.timeoutMs ?? DEFAULTS.timeoutMs,
    headers: extra.headers ?? {},
    tools: extra.tools ?? {},
    bridge: extra.bridge ?? true,
  };
}

/** A whole config around the given upstreams; `overrides` replaces top-level fields. */
export function gatewayConfig(upstreams: readonly UpstreamConfig[], overrides: Partial<Omit<GatewayConfig, 'upstreams'>> = {}): LoadedConfig {
  const config: GatewayConfig = {
    file: '/test/config.yaml',
    listen: { host: '127.0.0.1', port: 0 },
    allowedOrigins: [],
    limits: { maxRequestBytes: DEFAULTS.maxRequestBytes, maxResultBytes: DEFAULTS.maxResultBytes },
    defaults: { onInvalid: DEFAULTS.onInvalid, legacyRoots: DEFAULTS.legacyRoots, coerce: DEFAULTS.coerce },
    secrets: [],
    ...overrides,
    upstreams: Object.fromEntries(upstreams.map((u) => [u.name, u])),
  };
  const policies = new Map<string, UpstreamPolicy>();
  for (const u of upstreams) policies.set(u.name, compileUpstreamPolicy(u, config.defaults).policy);
  return { config, policies };
}
