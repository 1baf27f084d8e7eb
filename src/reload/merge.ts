/**
 * What a reload may change while the gateway runs, and what needs a restart.
 *
 * Routes, upstream connectors, stdio children and the listening socket are built once (Fastify cannot add
 * routes after ready, and a session must keep its child). So a reload applies: tool policies (`tools:`,
 * schema files), `defaults`, `clients` (each of those tells every client holding a stream to list its tools
 * again: `toolsChanged`), `auth`, `allowedOrigins`, `sessionIdPrefix` (sessions opened after the reload),
 * `limits.maxResultBytes` (for stdio: the line bound of
 * sessions opened after the reload; running children keep theirs), and each upstream's
 * `headers` and `timeoutMs`. It does not apply, and reports as "requires restart" while keeping the running
 * value: `listen`, the server's limits (`maxRequestBytes`, `headersTimeoutMs`, `requestTimeoutMs`,
 * `keepAliveTimeoutMs`, `maxHeaderBytes`: fixed when it starts), upstreams added,
 * removed or changed in kind (kept as they were, policy included), and an upstream's `path`, `url`, `sse`,
 * `command`, `args`, `env`, `cwd` (the rest of that upstream's changes still apply).
 */
import type { LoadedConfig } from '../config/load.js';
import { deepFreeze } from '../config/build.js';
import type { GatewayConfig, UpstreamConfig } from '../config/types.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';

/** The outcome of merging a freshly loaded config into the running one. */
export interface MergedReload {
  /** The generation to swap in. */
  readonly loaded: LoadedConfig;
  /** One sentence per change that was not applied. */
  readonly restartRequired: readonly string[];
  /** Upstreams whose advertised tool definitions may differ (their clients get tools/list_changed). */
  readonly toolsChanged: readonly string[];
  /** Secrets of the new generation (for log redaction). */
  readonly secrets: readonly string[];
}

/** Fields fixed at start, by upstream kind. */
const IDENTITY: Readonly<Record<UpstreamConfig['kind'], readonly string[]>> = {
  http: ['path', 'url'],
  sse: ['path', 'sse'],
  stdio: ['path', 'command', 'args', 'env', 'cwd'],
};

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function pick(value: object, key: string): unknown {
  return (value as Record<string, unknown>)[key];
}

/** The new upstream with its start-fixed fields taken from the running one; names the fields that differed. */
function mergeUpstream(running: UpstreamConfig, next: UpstreamConfig): { config: UpstreamConfig; fixed: string[] } {
  const fixed = IDENTITY[running.kind].filter((key) => !same(pick(running, key), pick(next, key)));
  if (fixed.length === 0) return { config: next, fixed };
  const kept = Object.fromEntries(IDENTITY[running.kind].map((key) => [key, pick(running, key)]));
  // Same kind, so the start-fixed fields of the running one complete the new one into a valid config.
  const config = { ...next, ...kept } as UpstreamConfig;
  if (running.kind === 'stdio' && running.cwd === undefined) delete (config as { cwd?: string }).cwd;
  return { config, fixed };
}

/** Keeps what the engine learned from the upstream's tools/list: it is about the upstream, not the config. */
function carryNative(policy: UpstreamPolicy, running: UpstreamPolicy | undefined): UpstreamPolicy {
  return running?.native ? { ...policy, native: running.native } : policy;
}

/** The limits the HTTP server is built with (src/http/server/create.ts). */
const SERVER_LIMITS = ['maxRequestBytes', 'headersTimeoutMs', 'requestTimeoutMs', 'keepAliveTimeoutMs', 'maxHeaderBytes'] as const;

export function mergeReload(running: LoadedConfig, next: LoadedConfig): MergedReload {
  const restartRequired: string[] = [];
  const toolsChanged: string[] = [];
  const old = running.config;
  const neu = next.config;
  if (!same(old.listen, neu.listen)) restartRequired.push(`listen changed (${old.listen.host}:${old.listen.port} kept)`);
  // The server's own bounds are fixed when it starts; maxResultBytes is read per exchange.
  for (const key of SERVER_LIMITS) {
    if (old.limits[key] !== neu.limits[key]) restartRequired.push(`limits.${key} changed (${old.limits[key]} kept)`);
  }
  // The console is built at start (its routes, its ledger): a reload keeps the running `ui:`.
  if (!same(old.ui, neu.ui)) restartRequired.push('ui changed (running values kept)');
  // A profile decides what a client is listed (outputSchema strip, schemaDialect, ...): a change to `clients:`
  // may change every upstream's tools for some client, which must list them again.
  const listingChanged = !same(old.defaults, neu.defaults) || !same(old.clients, neu.clients);

  const upstreams: Record<string, UpstreamConfig> = {};
  // defineProperty: an upstream may be called `__proto__`.
  const put = (name: string, value: UpstreamConfig): void => void Object.defineProperty(upstreams, name, { value, enumerable: true });
  const policies = new Map<string, UpstreamPolicy>();
  for (const [name, current] of Object.entries(old.upstreams)) {
    const candidate = Object.prototype.hasOwnProperty.call(neu.upstreams, name) ? neu.upstreams[name] : undefined;
    const currentPolicy = running.policies.get(name);
    const nextPolicy = next.policies.get(name);
    if (!candidate || !nextPolicy || candidate.kind !== current.kind) {
      restartRequired.push(candidate ? `upstream "${name}" changed kind (still served as ${current.kind})` : `upstream "${name}" removed (still served)`);
      put(name, current);
      if (currentPolicy) policies.set(name, currentPolicy);
      continue;
    }
    const { config, fixed } = mergeUpstream(current, candidate);
    if (fixed.length > 0) restartRequired.push(`upstream "${name}": ${fixed.join(', ')} changed (running values kept)`);
    put(name, config);
    policies.set(name, carryNative(nextPolicy, currentPolicy));
    if (listingChanged || !same(current.tools, config.tools)) toolsChanged.push(name);
  }
  for (const name of Object.keys(neu.upstreams)) {
    if (!Object.prototype.hasOwnProperty.call(old.upstreams, name)) restartRequired.push(`upstream "${name}" added (not served until restart)`);
  }

  const config: GatewayConfig = deepFreeze({
    ...neu,
    listen: old.listen,
    ...(old.ui !== undefined && { ui: old.ui }),
    limits: { ...old.limits, maxResultBytes: neu.limits.maxResultBytes },
    upstreams,
    // Kept upstreams still carry their old header and env values: keep redacting those too.
    secrets: [...new Set([...neu.secrets, ...old.secrets])],
  });
  return { loaded: { config, policies, ...(next.servedIds && { servedIds: next.servedIds }) }, restartRequired, toolsChanged, secrets: config.secrets };
}
