/**
 * The loaded, validated and frozen gateway configuration.
 * The YAML file is documented in README.md and described by mcp-retrofit.schema.json;
 * these types are what the rest of the gateway reads after `loadConfig`.
 */

import type { TelemetrySettings } from '../telemetry/setup.js';
import type { ClientProfileConfig } from '../policy/clients.js';
import { TOOL_DEFAULTS, type LegacyRoots, type OnInvalid, type RecordConfig, type RemoveAdditional, type ToolConfig, type ToolDefaults } from '../retrofit/settings.js';

export type { ExtractConfig, ExtractFormat, LegacyRoots, OnInvalid, RecordConfig, RemoveAdditional, ToolConfig, ToolDefaults } from '../retrofit/settings.js';

interface UpstreamCommon {
  /** The key under `upstreams:`. */
  readonly name: string;
  /** The route clients use; default `/<name>/mcp`. */
  readonly path: string;
  /** Per-request timeout towards the upstream (ms). Long-lived streams are exempt once headers arrive. */
  readonly timeoutMs: number;
  /** Tool policies by key (exact name or glob), in file order. */
  readonly tools: Readonly<Record<string, ToolConfig>>;
  /** Negotiate each side on its own (see src/protocol/negotiate.ts); default true. */
  readonly bridge: boolean;
  /** Recording of tools/call results (`record:`); absent when off. */
  readonly record?: RecordConfig;
  /**
   * How 2026-07-28 clients are served (`stateless:`) where the upstream does not speak that revision: on
   * pooled sessions the gateway holds (src/session/pool.ts).
   */
  readonly stateless: StatelessServing;
}

/** Settings of upstreams whose client sessions the gateway owns (stdio, legacy SSE). */
interface OwnedSessions {
  /** Most client sessions at once (legacy SSE connections included); beyond it a new session gets 503. */
  readonly maxSessions: number;
  /** A session with no HTTP exchange and nothing in flight for this long is closed (ms). */
  readonly idleTimeoutMs: number;
}

/** `stateless:` of a command/sse upstream (src/session/pool.ts). */
export interface StatelessServing {
  /** Serve 2026-07-28 clients (default true); false: they get what a server of the upstream's revision answers. */
  readonly serve: boolean;
  /** Most pooled upstream sessions at once (each serves one request at a time). */
  readonly poolSize: number;
  /** A pooled session unused for this long is closed (ms). */
  readonly idleTimeoutMs: number;
}

/** A Streamable HTTP upstream (`url:`). */
export interface HttpUpstreamConfig extends UpstreamCommon {
  readonly kind: 'http';
  readonly url: string;
  /** Headers added to every upstream request. */
  readonly headers: Readonly<Record<string, string>>;
  /** The URL clients use for this upstream through the gateway (OAuth `resource`); default: from each request. */
  readonly publicUrl?: string;
}

/** A legacy HTTP+SSE upstream (`sse:`). */
export interface SseUpstreamConfig extends UpstreamCommon, OwnedSessions {
  readonly kind: 'sse';
  readonly sse: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The URL clients use for this upstream through the gateway (OAuth `resource`); default: from each request. */
  readonly publicUrl?: string;
}

/** A stdio upstream (`command:`). */
export interface StdioUpstreamConfig extends UpstreamCommon, OwnedSessions {
  readonly kind: 'stdio';
  /** One child for every session, requests multiplexed with remapped ids. */
  readonly share: boolean;
  /** The level the child's stderr lines are logged at (`off`: kept only for error messages); default debug. */
  readonly stderr: 'info' | 'debug' | 'off';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export type UpstreamConfig = HttpUpstreamConfig | SseUpstreamConfig | StdioUpstreamConfig;

/** The gateway's bounds on what clients and upstreams send (`limits:`). */
export interface Limits {
  /** Largest request body (bytes); a larger one gets 413 and its connection closes. */
  readonly maxRequestBytes: number;
  /** Largest upstream result (bytes); a larger one becomes RETROFIT_ERR_RESULT_TOO_LARGE, never truncated JSON. */
  readonly maxResultBytes: number;
  /** Longest a request's headers may take to arrive (ms); then 408 and the connection closes. */
  readonly headersTimeoutMs: number;
  /** Longest a whole request (headers and body) may take to arrive (ms); then 408 and the connection closes. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests (ms). */
  readonly keepAliveTimeoutMs: number;
  /** Largest request head (request line and headers, bytes); a larger one gets 431. */
  readonly maxHeaderBytes: number;
}

export interface GatewayConfig {
  /** Absolute path of the config file. */
  readonly file: string;
  readonly listen: { readonly host: string; readonly port: number };
  readonly auth?: { readonly bearerTokens: readonly string[] };
  /** Origins accepted besides loopback ones (`*`: any); requests without Origin always pass. */
  readonly allowedOrigins: readonly string[];
  /**
   * Host header values accepted besides loopback ones (`*`: no Host check). Checked when bound to loopback or
   * when set. Absent in configs built in code; the loader always sets it.
   */
  readonly allowedHosts?: readonly string[];
  readonly limits: Limits;
  /**
   * Starts the id of every session the gateway holds (`<prefix>.<uuid>`), so that a load balancer in front
   * of several replicas can send a session's requests to the replica that holds it.
   */
  readonly sessionIdPrefix?: string;
  readonly defaults: ToolDefaults;
  /** Upstreams by name, in file order. */
  readonly upstreams: Readonly<Record<string, UpstreamConfig>>;
  /** The `telemetry:` block, when given (the environment may turn tracing on without it). */
  readonly telemetry?: TelemetrySettings;
  /**
   * The operator console (`ui:`, docs/console.md), with defaults filled in. Absent in configs built in code
   * (no console); the loader always sets it. Read once at start: a reload keeps the running value.
   */
  readonly ui?: UiSettings;
  /** Client profiles (`clients:`), in file order; the first that matches a client applies. */
  readonly clients?: readonly ClientProfileConfig[];
  /** Every string that came from `${VAR}` expansion or a secret-bearing key; the logger redacts these. */
  readonly secrets: readonly string[];
}

/** The operator console's settings (`ui:`). */
export interface UiSettings {
  /** Serve /ui (default false: no route, nothing allocated). */
  readonly enabled: boolean;
  /** Let the console write the config file (apply a learned proposal); default false. */
  readonly write: boolean;
  /** Serve peers that are not loopback; default false. */
  readonly remote: boolean;
  /** Last failures and last successes kept per tool, each (1..200, default 20). */
  readonly samples: number;
  /** A kept text is cut at this many bytes (default 16384). */
  readonly maxTextBytes: number;
}

/** `ui:` when nothing sets it: the console off. */
export const UI_DEFAULTS: UiSettings = Object.freeze({ enabled: false, write: false, remote: false, samples: 20, maxTextBytes: 16_384 });

export const DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8080,
  timeoutMs: 60_000,
  maxRequestBytes: 4 * 1024 * 1024,
  maxResultBytes: 16 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
  maxHeaderBytes: 16 * 1024,
  idleTimeoutMs: 15 * 60_000,
  /** stateless.poolSize: each pooled session of a `command:` upstream is a child. */
  statelessPoolSize: 4,
  statelessIdleTimeoutMs: 5 * 60_000,
  /** maxSessions of a `command:` upstream: a child costs ~57–145 MB and 0.15–0.8 s to start. */
  maxSessionsCommand: 32,
  /** maxSessions of a `command:` upstream with `share: true`: sessions share one child. */
  maxSessionsShared: 1024,
  /** maxSessions of an `sse:` upstream: each session holds one connection to the upstream. */
  maxSessionsSse: 256,
  onInvalid: TOOL_DEFAULTS.onInvalid as OnInvalid,
  legacyRoots: TOOL_DEFAULTS.legacyRoots as LegacyRoots,
  coerce: TOOL_DEFAULTS.coerce,
  recordMaxPerTool: 20,
  recordMaxBytes: 256 * 1024,
  removeAdditional: TOOL_DEFAULTS.removeAdditional as RemoveAdditional,
});

/** The default limits (a config without `limits:`, or without some of its keys). */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxRequestBytes: DEFAULTS.maxRequestBytes,
  maxResultBytes: DEFAULTS.maxResultBytes,
  headersTimeoutMs: DEFAULTS.headersTimeoutMs,
  requestTimeoutMs: DEFAULTS.requestTimeoutMs,
  keepAliveTimeoutMs: DEFAULTS.keepAliveTimeoutMs,
  maxHeaderBytes: DEFAULTS.maxHeaderBytes,
});

/** `stateless:` when nothing sets it. */
export const STATELESS_DEFAULTS: StatelessServing = Object.freeze({ serve: true, poolSize: DEFAULTS.statelessPoolSize, idleTimeoutMs: DEFAULTS.statelessIdleTimeoutMs });
