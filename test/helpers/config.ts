/**
 * Build a LoadedConfig in code (no YAML), compiling policies the way the loader does.
 */
import type { LoadedConfig } from '../../src/config/load.js';
import { DEFAULT_LIMITS, DEFAULTS, STATELESS_DEFAULTS, type GatewayConfig, type HttpUpstreamConfig, type SseUpstreamConfig, type StdioUpstreamConfig, type ToolConfig, type UpstreamConfig } from '../../src/config/types.js';
import { compileUpstreamPolicy } from '../../src/policy/compile.js';
import type { UpstreamPolicy } from '../../src/retrofit/policy.js';

/** An HTTP upstream from its url and a few optional settings. */
export function httpUpstream(
  name: string,
  url: string,
  extra: { path?: string; timeoutMs?: number; headers?: Record<string, string>; tools?: Record<string, ToolConfig>; bridge?: boolean; stateless?: HttpUpstreamConfig['stateless'] } = {},
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
    stateless: extra.stateless ?? STATELESS_DEFAULTS,
  };
}

/** A legacy HTTP+SSE upstream from its SSE url and a few optional settings. */
export function sseUpstream(name: string, sse: string, extra: Partial<Omit<SseUpstreamConfig, 'kind' | 'name' | 'sse'>> = {}): SseUpstreamConfig {
  return { kind: 'sse', name, sse, path: `/${name}/mcp`, timeoutMs: DEFAULTS.timeoutMs, headers: {}, tools: {}, bridge: true, idleTimeoutMs: DEFAULTS.idleTimeoutMs, maxSessions: DEFAULTS.maxSessionsSse, stateless: STATELESS_DEFAULTS, ...extra };
}

/** A stdio upstream from its command and a few optional settings. */
export function stdioUpstream(name: string, command: string, extra: Partial<Omit<StdioUpstreamConfig, 'kind' | 'name' | 'command'>> = {}): StdioUpstreamConfig {
  return { kind: 'stdio', name, command, args: [], env: {}, path: `/${name}/mcp`, timeoutMs: DEFAULTS.timeoutMs, tools: {}, bridge: true, share: false, idleTimeoutMs: DEFAULTS.idleTimeoutMs, stateless: STATELESS_DEFAULTS, stderr: 'debug', maxSessions: extra.share ? DEFAULTS.maxSessionsShared : DEFAULTS.maxSessionsCommand, ...extra };
}

/** A whole config around the given upstreams; `overrides` replaces top-level fields. */
export function gatewayConfig(upstreams: readonly UpstreamConfig[], overrides: Partial<Omit<GatewayConfig, 'upstreams'>> = {}): LoadedConfig {
  const config: GatewayConfig = {
    file: '/test/config.yaml',
    listen: { host: '127.0.0.1', port: 0 },
    allowedOrigins: [],
    limits: DEFAULT_LIMITS,
    defaults: { onInvalid: DEFAULTS.onInvalid, legacyRoots: DEFAULTS.legacyRoots, coerce: DEFAULTS.coerce },
    secrets: [],
    ...overrides,
    upstreams: Object.fromEntries(upstreams.map((u) => [u.name, u])),
  };
  const policies = new Map<string, UpstreamPolicy>();
  for (const u of upstreams) policies.set(u.name, compileUpstreamPolicy(u, config.defaults).policy);
  return { config, policies };
}
