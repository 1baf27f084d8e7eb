/**
 * The 2026-07-28 revision as the gateway serves it in front of upstreams that hold sessions: what a request
 * must carry (the `_meta` envelope, the mirrored `Mcp-*` headers), the shapes of its results (`resultType`,
 * the caching fields, `server/discover`), and which server→client requests become `input_required`. Pure
 * functions over parsed JSON: src/http/front/modern.ts applies them, src/session/pool.ts holds the sessions.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { stringifyKept, trailOf, type LiteralTrail } from '../json-literals.js';
import { FIRST_STATELESS_REVISION, isKnownRevision, isRevision, isStateless, LATEST_STATEFUL_REVISION, META_PROTOCOL_VERSION, STATEFUL_REVISIONS } from './era.js';

/** The one session-less revision the gateway serves. */
export const MODERN_REVISION = FIRST_STATELESS_REVISION;
/** Every revision a client of a gateway-held upstream may use, newest first (server/discover lists them). */
export const SERVED_REVISIONS: readonly string[] = [MODERN_REVISION, ...STATEFUL_REVISIONS];

export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** The `_meta` keys of the request envelope: the gateway answers them itself; a session-holding upstream never sees them. */
const ENVELOPE_KEYS: readonly string[] = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL];

/** Results that carry `ttlMs` and `cacheScope` when complete (server/utilities/caching). */
const CACHEABLE: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);
/** Requests whose result may be `input_required` (basic/patterns/mrtr). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);
/** Requests whose `Mcp-Name` header mirrors `params.name` or `params.uri`. */
const NAMED: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
/** Methods of the session revisions that 2026-07-28 no longer has: a client of it asking for one gets -32601. */
const REMOVED_METHODS: ReadonlySet<string> = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);
/** Server→client requests a 2026-07-28 client answers as input requests, with the capability that allows each. */
export const INPUT_CAPABILITY: Readonly<Record<string, 'sampling' | 'elicitation' | 'roots'>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** How long a client may keep a list or discover result (ms): as long as nothing says it changed. */
export const CACHE_TTL_MS = 0;

/** What is wrong with a request, as the revision answers it (see RETROFIT_ERR_HEADER_MISMATCH and friends). */
export type ModernProblem =
  | { readonly kind: 'header'; readonly detail: string }
  | { readonly kind: 'version'; readonly requested: string }
  | { readonly kind: 'meta'; readonly detail: string }
  | { readonly kind: 'removed'; readonly method: string };

/**
 * A request of the session-less era, by its header (a revision from 2026-07-28 on) or its `_meta` (any
 * revision there that is not a session one: `_meta` carries the revision only from 2026-07-28 on, so an
 * unknown value — `v999.0.0` — is a session-less client asking for what the gateway does not serve, -32022).
 */
export function claimsModern(header: string | undefined, metaRevision: unknown): boolean {
  if (isRevision(header) && header >= MODERN_REVISION) return true;
  return typeof metaRevision === 'string' && !(isRevision(metaRevision) && metaRevision < MODERN_REVISION);
}

/**
 * A header value that may be Base64-encoded with the revision's sentinel (`=?base64?…?=`): its text, or
 * undefined when the encoding is malformed.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!m) return value.startsWith('=?base64?') ? undefined : value;
  const bytes = Buffer.from(m[1]!, 'base64');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

/** A header value in the revision's Base64 form when it cannot go as plain ASCII (decodeHeaderValue reads it). */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith('=?base64?');
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

export interface ModernHeaders {
  readonly protocolVersion: string | undefined;
  readonly method: string | undefined;
  readonly name: string | undefined;
}

/**
 * Check one 2026-07-28 request against its headers and its `_meta` envelope, in the order the revision's
 * Streamable HTTP transport gives (header–body agreement, the version, the envelope). Undefined: it is fine.
 */
export function checkModernRequest(message: JsonObject, headers: ModernHeaders): ModernProblem | undefined {
  const method = typeof message.method === 'string' ? message.method : '';
  const params = isJsonObject(message.params) ? message.params : undefined;
  const meta = isJsonObject(params?._meta) ? params._meta : undefined;
  const revision = meta?.[META_PROTOCOL_VERSION];
  if (headers.protocolVersion === undefined) return { kind: 'header', detail: 'the MCP-Protocol-Version header is required' };
  if (revision !== undefined && revision !== headers.protocolVersion) {
    return { kind: 'header', detail: `MCP-Protocol-Version header value '${headers.protocolVersion}' does not match body value '${String(revision)}'` };
  }
  if (headers.method === undefined) return { kind: 'header', detail: 'the Mcp-Method header is required' };
  if (headers.method !== method) return { kind: 'header', detail: `Mcp-Method header value '${headers.method}' does not match body value '${method}'` };
  const field = NAMED[method];
  if (field !== undefined) {
    const body = params?.[field];
    if (headers.name === undefined) return { kind: 'header', detail: 'the Mcp-Name header is required' };
    const name = decodeHeaderValue(headers.name);
    if (name === undefined) return { kind: 'header', detail: 'the Mcp-Name header is not valid Base64' };
    if (name !== body) return { kind: 'header', detail: `Mcp-Name header value '${name}' does not match body value '${String(body)}'` };
  }
  if (headers.protocolVersion !== MODERN_REVISION) return { kind: 'version', requested: headers.protocolVersion };
  if (revision === undefined) return { kind: 'meta', detail: `_meta["${META_PROTOCOL_VERSION}"] is required` };
  if (!isJsonObject(meta?.[META_CLIENT_CAPABILITIES])) return { kind: 'meta', detail: `_meta["${META_CLIENT_CAPABILITIES}"] is required` };
  if (REMOVED_METHODS.has(method)) return { kind: 'removed', method };
  return undefined;
}

/**
 * An upstream's error answer to `initialize` that says it serves only session-less revisions (-32022, its
 * `data.supported` naming those only): the answer of a server that holds no sessions.
 */
export function refusesSessions(error: unknown): boolean {
  if (!isJsonObject(error) || error.code !== -32022 || !isJsonObject(error.data)) return false;
  const supported = error.data.supported;
  return Array.isArray(supported) && supported.length > 0 && supported.every((v) => isRevision(v) && isStateless(v));
}

/** The client's declared capabilities of a checked request. */
export function clientCapabilities(message: JsonObject): JsonObject {
  const meta = isJsonObject(message.params) && isJsonObject(message.params._meta) ? message.params._meta : {};
  const caps = meta[META_CLIENT_CAPABILITIES];
  return isJsonObject(caps) ? caps : {};
}

/** The request's `_meta` logLevel, if given. */
export function logLevelOf(message: JsonObject): string | undefined {
  const meta = isJsonObject(message.params) && isJsonObject(message.params._meta) ? message.params._meta : {};
  const level = meta[META_LOG_LEVEL];
  return typeof level === 'string' ? level : undefined;
}

/** The client's self-reported name and version, if given. */
export function clientInfo(message: JsonObject): JsonObject | undefined {
  const meta = isJsonObject(message.params) && isJsonObject(message.params._meta) ? message.params._meta : {};
  const info = meta[META_CLIENT_INFO];
  return isJsonObject(info) ? info : undefined;
}

/**
 * Which pool of sessions a request is served from: the server→client requests a session's upstream may send
 * depend on the capabilities it was initialized with, so sessions are kept apart by the three that allow them,
 * and by what each allows (elicitation's `form` / `url` modes, sampling's `tools` and `context`): a session
 * initialized for one client's modes would ask another client in modes it lacks, and never in those it has.
 * A capability with members is named with a short hash of them (its keys in order: `{}` and the same members
 * in another order are the same key).
 */
export function capabilityKey(caps: JsonObject): string {
  const parts: string[] = [];
  for (const k of ['sampling', 'elicitation', 'roots'] as const) {
    const cap = caps[k];
    if (!isJsonObject(cap)) continue;
    parts.push(Object.keys(cap).length === 0 ? k : `${k}#${createHash('sha256').update(canonicalJson(cap)).digest('hex').slice(0, 12)}`);
  }
  return parts.join('+') || 'none';
}

/** A JSON value's text with every object's keys in order, so that equal values give equal texts. */
function canonicalJson(value: Json): string {
  return JSON.stringify(value, (_key, v: unknown) => (isJsonObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

/** The capabilities to initialize a pooled session with, for clients of `key` (as the first such client declared them). */
export function initializeCapabilities(caps: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of ['sampling', 'elicitation', 'roots'] as const) if (isJsonObject(caps[k])) out[k] = caps[k];
  return out;
}

/**
 * The request as a session-holding upstream takes it: under the gateway's `id`, without the envelope's `_meta`
 * keys (the gateway answers them) and without the retry's `inputResponses` / `requestState` (the gateway
 * answered the upstream's requests with them already). Everything else is kept as the client sent it.
 */
export function upstreamRequest(message: JsonObject, id: string): JsonObject {
  const params = isJsonObject(message.params) ? message.params : undefined;
  const out: JsonObject = { ...message, id };
  if (!params) return out;
  const { inputResponses: _responses, requestState: _state, ...rest } = params;
  if (isJsonObject(rest._meta)) {
    const meta: JsonObject = {};
    for (const [k, v] of Object.entries(rest._meta)) if (!ENVELOPE_KEYS.includes(k)) meta[k] = v;
    if (Object.keys(meta).length > 0) rest._meta = meta;
    else delete rest._meta;
  }
  out.params = rest;
  return out;
}

/**
 * A complete result for a 2026-07-28 client: `resultType`, the caching fields where they belong, the server's
 * identity. Always `complete`: an upstream of session revisions asks its client through requests of its own, so
 * a `resultType` of its (a member its revision does not have: `input_required` with a `requestState` the gateway
 * never issued, or a value the SDK clients refuse) is never the client's to act on.
 */
export function completeResult(method: string, result: JsonObject, serverInfo: JsonObject | undefined): JsonObject {
  const out: JsonObject = { ...result, resultType: 'complete' };
  if (CACHEABLE.has(method)) {
    if (typeof out.ttlMs !== 'number' || !Number.isSafeInteger(out.ttlMs) || out.ttlMs < 0) out.ttlMs = CACHE_TTL_MS;
    if (out.cacheScope !== 'public' && out.cacheScope !== 'private') out.cacheScope = 'private';
  }
  if (serverInfo) out._meta = { ...(isJsonObject(result._meta) ? result._meta : {}), [META_SERVER_INFO]: serverInfo };
  return out;
}

/**
 * `server/discover`, answered from the upstream's InitializeResult: its capabilities (less `tasks`, an
 * extension in 2026-07-28) and instructions, its serverInfo in `_meta`, and the revisions the gateway serves.
 */
export function discoverResult(initialize: JsonObject): JsonObject {
  const caps = isJsonObject(initialize.capabilities) ? { ...initialize.capabilities } : {};
  delete caps.tasks;
  const result: JsonObject = { supportedVersions: [...SERVED_REVISIONS], capabilities: caps };
  if (typeof initialize.instructions === 'string') result.instructions = initialize.instructions;
  return completeResult('server/discover', result, isJsonObject(initialize.serverInfo) ? initialize.serverInfo : undefined);
}

/** One server→client request as an input request (`{method, params}`), keyed by the gateway. */
export function inputRequest(message: JsonObject): JsonObject {
  const out: JsonObject = { method: message.method as Json };
  if (message.params !== undefined) out.params = message.params;
  return out;
}

/** Result members of 2026-07-28 that the session revisions do not have. */
const MODERN_ONLY = ['resultType', 'ttlMs', 'cacheScope'];

/**
 * One message of a 2026-07-28 answer stream, for a client of a session revision (src/upstream/modern-link.ts):
 * `pass`: not JSON, not an object, or a notification (progress, log): handed on as it came; `request`: a
 * request on an answer stream, which this revision does not have (dropped); `input`: an `input_required`
 * result (`literals`: its number literals a double cannot hold, for the requests written from it); `answer`: the call's answer as the session revision has it, its id the client's and its result
 * without `resultType`, `ttlMs` and `cacheScope`, its number literals as the upstream wrote them
 * (src/json-literals.ts). Pure, so that a worker thread can run it on a large answer.
 */
export type SessionAnswer =
  | { readonly kind: 'pass' }
  | { readonly kind: 'request'; readonly method: string }
  | { readonly kind: 'input'; readonly result: JsonObject; readonly literals?: LiteralTrail }
  | { readonly kind: 'answer'; readonly json: string };

export function sessionAnswer(text: string, clientId: string | number): SessionAnswer {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'pass' };
  }
  if (!isJsonObject(message)) return { kind: 'pass' };
  if (typeof message.method === 'string') return message.id === undefined ? { kind: 'pass' } : { kind: 'request', method: message.method };
  const result = isJsonObject(message.result) ? message.result : undefined;
  const trail = trailOf(text);
  if (result?.resultType === 'input_required') {
    const literals = trail?.children.get('result');
    return { kind: 'input', result, ...(literals && { literals }) };
  }
  const out: JsonObject = { ...message, id: clientId };
  if (result) {
    const plain: JsonObject = { ...result };
    for (const k of MODERN_ONLY) delete plain[k];
    out.result = plain;
  }
  // Written again: every number literal a double cannot hold (in `_meta`, structuredContent) as the upstream wrote it.
  return { kind: 'answer', json: stringifyKept(out, trail) };
}

/**
 * An older client's InitializeResult from the upstream's DiscoverResult: the session revision it asked for
 * (else the latest), the upstream's capabilities, instructions and serverInfo (else one named `upstream`).
 */
export function initializeFromDiscover(found: JsonObject, asked: unknown, upstream: string): JsonObject {
  const protocolVersion = isKnownRevision(asked) && !isStateless(asked) ? asked : LATEST_STATEFUL_REVISION;
  const meta = isJsonObject(found._meta) ? found._meta : {};
  const serverInfo = isJsonObject(meta[META_SERVER_INFO]) ? meta[META_SERVER_INFO] : { name: upstream, version: '0' };
  const capabilities = isJsonObject(found.capabilities) ? { ...found.capabilities } : {};
  const result: JsonObject = { protocolVersion, capabilities, serverInfo };
  if (typeof found.instructions === 'string') result.instructions = found.instructions;
  return result;
}

/**
 * A message of a `subscriptions/listen` stream, for an older client's server stream: a notification without
 * its subscription id, its number literals as the upstream wrote them (undefined: nothing for the client — not
 * JSON, not a notification, the acknowledgement).
 */
export function listenedNotification(text: string): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(message) || typeof message.method !== 'string' || message.id !== undefined) return undefined;
  if (message.method === 'notifications/subscriptions/acknowledged') return undefined;
  const params = isJsonObject(message.params) ? { ...message.params } : undefined;
  if (params && isJsonObject(params._meta)) {
    const { [META_SUBSCRIPTION_ID]: _id, ...meta } = params._meta;
    if (Object.keys(meta).length > 0) params._meta = meta;
    else delete params._meta;
  }
  return stringifyKept(params ? { ...message, params } : message, trailOf(text));
}
