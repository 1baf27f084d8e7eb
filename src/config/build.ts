/**
 * Schema-valid plain config value → GatewayConfig: defaults applied, paths and working directories resolved,
 * secret-bearing values collected. Reads defensively, so it can also run over a file with problems elsewhere
 * (the loader throws afterwards anyway); each upstream is built only when its own subtree is clean.
 */
import type { TelemetrySettings } from '../telemetry/setup.js';
import type { ClientProfileConfig } from '../policy/clients.js';
import { dirname, resolve } from 'node:path';
import {
  DEFAULTS,
  type ExtractConfig,
  type ExtractFormat,
  type GatewayConfig,
  type RemoveAdditional,
  type ToolConfig,
  type ToolDefaults,
  type UpstreamConfig,
  type UiSettings,
  UI_DEFAULTS,
} from './types.js';
import type { JsonSchema } from '../json.js';
import { withRecords } from './record.js';

type Obj = Record<string, unknown>;

const FORMATS: readonly ExtractFormat[] = ['auto', 'json', 'yaml', 'regex', 'table', 'csv', 'list'];

export const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isInteger(v) ? v : fallback);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const stringMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(v)).filter((e): e is [string, string] => typeof e[1] === 'string'));

/** The route an upstream is served on. */
export function upstreamPath(name: string, raw: unknown): string {
  return str(obj(raw).path) ?? `/${name}/mcp`;
}

/** `defaults:` with the built-in values filled in. */
export function buildDefaults(raw: unknown): ToolDefaults {
  const d = obj(raw);
  const removeAdditional = removeAdditionalOf(d.removeAdditional);
  return {
    onInvalid: d.onInvalid === 'passthrough' || d.onInvalid === 'error' ? d.onInvalid : DEFAULTS.onInvalid,
    legacyRoots: d.legacyRoots === 'wrap' || d.legacyRoots === 'drop' ? d.legacyRoots : DEFAULTS.legacyRoots,
    coerce: typeof d.coerce === 'boolean' ? d.coerce : DEFAULTS.coerce,
    ...(typeof d.shadow === 'boolean' && { shadow: d.shadow }),
    // Absent means DEFAULTS.removeAdditional (false), so configs that never mention it build as before.
    ...(removeAdditional !== undefined && { removeAdditional }),
  };
}

function removeAdditionalOf(v: unknown): RemoveAdditional | undefined {
  return typeof v === 'boolean' || v === 'all' ? v : undefined;
}

/** The schemas of each tool entry as loaded (read from `*SchemaFile`, files they `$ref` bundled in), by tool key. */
export type LoadedSchemas = ReadonlyMap<string, ToolFiles>;
/** The loaded schemas of one tool entry; an absent one is taken from the entry as written. */
export interface ToolFiles {
  readonly output?: FileSchema;
  readonly input?: FileSchema;
}
/** A loaded schema: self-contained (referenced files embedded), and the file it was read from, if any. */
export interface FileSchema {
  readonly file?: string;
  readonly schema: JsonSchema;
}

function buildExtract(raw: unknown): ExtractConfig | undefined {
  if (raw === undefined) return undefined;
  const e = obj(raw);
  const format = FORMATS.find((f) => f === e.format) ?? 'auto';
  const out: { -readonly [K in keyof ExtractConfig]: ExtractConfig[K] } = { format };
  if (typeof e.pattern === 'string') out.pattern = e.pattern;
  if (typeof e.flags === 'string') out.flags = e.flags;
  if (typeof e.all === 'boolean') out.all = e.all;
  if (typeof e.select === 'string') out.select = e.select;
  if (typeof e.wrap === 'string') out.wrap = e.wrap;
  if (typeof e.delimiter === 'string') out.delimiter = e.delimiter;
  return out;
}

/** `shadow`: the entry's own, else its upstream's, else `defaults.shadow`. */
function buildTool(raw: unknown, files: ToolFiles | undefined, defaults: ToolDefaults, upstreamShadow: unknown): ToolConfig {
  const t = obj(raw);
  const out: { -readonly [K in keyof ToolConfig]: ToolConfig[K] } = {};
  if (files?.output) {
    out.outputSchema = files.output.schema;
    if (files.output.file !== undefined) out.outputSchemaFile = files.output.file;
  } else if (t.outputSchema !== undefined) out.outputSchema = t.outputSchema as JsonSchema;
  if (files?.input) {
    out.inputSchema = files.input.schema;
    if (files.input.file !== undefined) out.inputSchemaFile = files.input.file;
  } else if (t.inputSchema !== undefined) out.inputSchema = t.inputSchema as JsonSchema;
  const extract = buildExtract(t.extract);
  if (extract) out.extract = extract;
  // Inherited settings are written into every entry, so consumers never need the defaults beside it.
  out.onInvalid = t.onInvalid === 'error' || t.onInvalid === 'passthrough' ? t.onInvalid : defaults.onInvalid;
  out.legacyRoots = t.legacyRoots === 'wrap' || t.legacyRoots === 'drop' ? t.legacyRoots : defaults.legacyRoots;
  out.coerce = typeof t.coerce === 'boolean' ? t.coerce : defaults.coerce;
  // Written when set at any level, so `shadow: false` on an upstream beats `defaults.shadow: true`.
  const shadow = typeof t.shadow === 'boolean' ? t.shadow : typeof upstreamShadow === 'boolean' ? upstreamShadow : defaults.shadow;
  if (shadow !== undefined) out.shadow = shadow;
  // Not inherited here: whether the entry itself sets it decides whether native structuredContent is pruned.
  const removeAdditional = removeAdditionalOf(t.removeAdditional);
  if (removeAdditional !== undefined) out.removeAdditional = removeAdditional;
  return out;
}

/** One upstream entry → UpstreamConfig; secret-bearing values (headers, env) go into `secrets`. */
export function buildUpstream(
  name: string,
  raw: unknown,
  ctx: { readonly configDir: string; readonly defaults: ToolDefaults; readonly schemas: LoadedSchemas; readonly secrets: Set<string>; readonly rawDefaults?: unknown },
): UpstreamConfig {
  const u = obj(raw);
  const d = obj(ctx.rawDefaults);
  // Upstream settings inherit `defaults:` like tool settings do.
  const inherited = (key: string): unknown => (u[key] !== undefined ? u[key] : d[key]);
  const bool = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback);
  const share = bool(inherited('share'), false);
  const maxSessionsDefault = u.command === undefined ? DEFAULTS.maxSessionsSse : share ? DEFAULTS.maxSessionsShared : DEFAULTS.maxSessionsCommand;
  // `stateless:` merges key by key: an upstream's poolSize keeps the defaults' serve.
  const stateless = { ...obj(d.stateless), ...obj(u.stateless) };
  const owned = {
    idleTimeoutMs: int(inherited('idleTimeoutMs'), DEFAULTS.idleTimeoutMs),
    maxSessions: int(inherited('maxSessions'), maxSessionsDefault),
  };
  const tools: Record<string, ToolConfig> = {};
  for (const [key, tool] of Object.entries(obj(u.tools))) {
    Object.defineProperty(tools, key, { value: buildTool(tool, ctx.schemas.get(key), ctx.defaults, u.shadow), enumerable: true });
  }
  const common = {
    name,
    path: upstreamPath(name, raw),
    timeoutMs: int(u.timeoutMs, DEFAULTS.timeoutMs),
    tools,
    bridge: bool(inherited('bridge'), true),
    stateless: {
      serve: bool(stateless.serve, true),
      poolSize: int(stateless.poolSize, DEFAULTS.statelessPoolSize),
      idleTimeoutMs: int(stateless.idleTimeoutMs, DEFAULTS.statelessIdleTimeoutMs),
    },
  };
  const command = str(u.command);
  if (command !== undefined) {
    const env = stringMap(u.env);
    for (const v of Object.values(env)) ctx.secrets.add(v);
    const cwd = str(u.cwd);
    const stderr = u.stderr === 'info' || u.stderr === 'off' ? u.stderr : 'debug';
    return { ...common, ...owned, kind: 'stdio', command, args: strings(u.args), env, cwd: cwd === undefined ? ctx.configDir : resolve(ctx.configDir, cwd), share, stderr };
  }
  const headers = stringMap(u.headers);
  for (const v of Object.values(headers)) ctx.secrets.add(v);
  const publicUrl = str(u.publicUrl);
  const http = { ...common, headers, ...(publicUrl !== undefined && { publicUrl }) };
  const sse = str(u.sse);
  if (sse !== undefined) return { ...http, ...owned, kind: 'sse', sse };
  return { ...http, kind: 'http', url: str(u.url) ?? '' };
}

/** The whole GatewayConfig around already-built upstreams. */
/** `clients:` entries with their defaults (keep, keep, false, keep); the schema has checked their types. */
function buildClients(raw: unknown): ClientProfileConfig[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((entry) => {
    const e = obj(entry);
    const m = obj(e.match);
    const match: { -readonly [K in keyof ClientProfileConfig['match']]: ClientProfileConfig['match'][K] } = {};
    if (typeof m.name === 'string') match.name = m.name;
    if (typeof m.version === 'string') match.version = m.version;
    if (Array.isArray(m.revision)) match.revision = strings(m.revision);
    return {
      name: str(e.name) ?? '',
      match,
      outputSchema: e.outputSchema === 'strip' ? 'strip' : 'keep',
      schemaDialect: e.schemaDialect === '2020-12' ? '2020-12' : 'keep',
      textFallback: e.textFallback === true,
      inputSchemaRoot: e.inputSchemaRoot === 'object' ? 'object' : 'keep',
    };
  });
}

export function buildGateway(
  file: string,
  raw: unknown,
  upstreams: Record<string, UpstreamConfig>,
  secrets: Set<string>,
): GatewayConfig {
  const root = obj(raw);
  const listen = obj(root.listen);
  const limits = obj(root.limits);
  const config: { -readonly [K in keyof GatewayConfig]: GatewayConfig[K] } = {
    file,
    listen: { host: str(listen.host) ?? DEFAULTS.host, port: int(listen.port, DEFAULTS.port) },
    allowedOrigins: strings(root.allowedOrigins),
    allowedHosts: strings(root.allowedHosts),
    limits: {
      maxRequestBytes: int(limits.maxRequestBytes, DEFAULTS.maxRequestBytes),
      maxResultBytes: int(limits.maxResultBytes, DEFAULTS.maxResultBytes),
      headersTimeoutMs: int(limits.headersTimeoutMs, DEFAULTS.headersTimeoutMs),
      requestTimeoutMs: int(limits.requestTimeoutMs, DEFAULTS.requestTimeoutMs),
      keepAliveTimeoutMs: int(limits.keepAliveTimeoutMs, DEFAULTS.keepAliveTimeoutMs),
      maxHeaderBytes: int(limits.maxHeaderBytes, DEFAULTS.maxHeaderBytes),
    },
    defaults: buildDefaults(root.defaults),
    upstreams: withRecords(upstreams, root, dirname(file)),
    secrets: [],
  };
  const prefix = str(root.sessionIdPrefix);
  if (prefix !== undefined) config.sessionIdPrefix = prefix;
  config.ui = buildUi(root.ui);
  if (root.telemetry !== undefined) config.telemetry = obj(root.telemetry) as TelemetrySettings;
  const clients = buildClients(root.clients);
  if (clients.length > 0) config.clients = clients;
  if (root.auth !== undefined) {
    const bearerTokens = strings(obj(root.auth).bearerTokens);
    for (const t of bearerTokens) secrets.add(t);
    config.auth = { bearerTokens };
  }
  config.secrets = [...secrets].filter((s) => s !== '');
  return config;
}

/** The `ui:` block with its defaults (the schema checked its values). */
function buildUi(raw: unknown): UiSettings {
  const ui = obj(raw);
  const flag = (value: unknown, fallback: boolean): boolean => (typeof value === 'boolean' ? value : fallback);
  return {
    enabled: flag(ui.enabled, UI_DEFAULTS.enabled),
    write: flag(ui.write, UI_DEFAULTS.write),
    remote: flag(ui.remote, UI_DEFAULTS.remote),
    samples: int(ui.samples, UI_DEFAULTS.samples),
    maxTextBytes: int(ui.maxTextBytes, UI_DEFAULTS.maxTextBytes),
  };
}

/** Freezes a value and everything reachable from it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Obj)[key]);
  }
  return value;
}
