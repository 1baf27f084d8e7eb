/**
 * A link from a client session the gateway holds to a `url:` upstream that serves only 2026-07-28 (no
 * `initialize`, no sessions): the older client (2024-11-05 … 2025-11-25) keeps its session with the gateway,
 * and each of its requests goes upstream as a request of the session-less revision.
 *
 * - `initialize` is answered by the gateway from the upstream's `server/discover` (its capabilities,
 *   instructions and serverInfo; the revision the client asked for, a session one). `ping` and
 *   `logging/setLevel` are answered here (the level goes on later requests as `_meta` logLevel).
 * - Every other request goes upstream with the `_meta` envelope (revision, the client's capabilities and
 *   info from its initialize) and the mirrored headers (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`).
 *   Its answer — JSON or SSE, progress and log messages first — comes back as messages of the session; a
 *   complete result loses the revision's `resultType`, `ttlMs`, `cacheScope`, which older clients do not know
 *   (src/protocol/modern.ts sessionAnswer: a message past OFFLOAD_BYTES is reshaped on the pipeline's worker).
 * - An `input_required` result becomes server→client requests on the client's session (ids `mrtr-<n>`); once
 *   the client answered all of them, the request is sent again with `inputResponses` and `requestState`.
 * - `notifications/cancelled` for a request closes its answer stream (the revision's cancellation).
 * - The client's server stream is fed by a `subscriptions/listen` of its own (list changes the upstream
 *   announces, and updates of the resources the client subscribed to with `resources/subscribe`, answered
 *   here), reopened with backoff if the upstream ends it.
 */
import { RetrofitError } from '../errors.js';
import { stringifyKept, trailOf, type LiteralTrail } from '../json-literals.js';
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { classifyMessage, idKey, type JsonRpcId } from '../jsonrpc/classify.js';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';
import type { Reshaped } from '../pipeline/offload/protocol.js';
import { reshapeAnswer } from '../pipeline/offload/reshape.js';
import { META_PROTOCOL_VERSION } from '../protocol/era.js';
import { encodeHeaderValue, initializeFromDiscover, listenedNotification, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, MODERN_REVISION, sessionAnswer, type SessionAnswer } from '../protocol/modern.js';
import { readJsonAnswer, readSseAnswer } from './answer-reader.js';
import { decodedBody } from './exchange.js';
import { failureError, failureKind } from './errors.js';
import { headerValue, mediaType, type HeaderMap } from './headers.js';
import { HttpLink, type HttpLinkOptions } from './http-link.js';
import { newCall, requestTrail, type Call } from './modern-call.js';
import type { SendOptions, SendOutcome } from './link.js';

/** Requests whose Mcp-Name header mirrors `params.name` / `params.uri`. */
const NAMED: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
/** Longest wait before a listen stream that ended is opened again (ms). */
const MAX_RELISTEN_MS = 30_000;
/** Input requests of one request waiting for the client's answers, at most. */
const MAX_INPUTS = 64;
/** Resources one session may subscribe to. */
const MAX_SUBSCRIPTIONS = 1000;
/**
 * Rounds of `input_required` one request may take (the v2 client's own bound, its inputRequired.maxRounds
 * default): an upstream that asks for ever, or hands back only its state (sent again at once), ends there.
 */
export const MAX_INPUT_ROUNDS = 10;

/** What a link to a 2026-07-28 upstream needs besides HttpLinkOptions. */
export interface ModernLinkOptions extends HttpLinkOptions {
  /** Reshape a large answer on a worker (src/pipeline/rewrite.ts Rewriter.reshape); undefined: it cannot. */
  readonly reshape?: (data: Buffer, clientId: string | number) => Promise<Reshaped<Buffer>> | undefined;
}

export class ModernUpstreamLink extends HttpLink {
  protected declare readonly o: ModernLinkOptions;
  readonly #calls = new Map<string, Call>();
  /** The server→client requests made of input requests: our id → the call and its key. */
  readonly #asks = new Map<string, { readonly call: Call; readonly key: string }>();
  readonly #subscribed = new Set<string>();
  #capabilities: JsonObject = {};
  #clientInfo: JsonObject | undefined;
  #logLevel: string | undefined;
  #discovered: JsonObject | undefined;
  #listen: AbortController | undefined;
  #relisten: NodeJS.Timeout | undefined;
  #relistenMs = 1000;
  #asked = 0;

  constructor(options: ModernLinkOptions) {
    super(options);
  }

  async send(json: string, options: SendOptions = {}): Promise<SendOutcome> {
    if (!this.alive) return { ok: false, error: this.error() };
    let message: unknown;
    try {
      message = JSON.parse(json);
    } catch {
      return { ok: true };
    }
    const c = classifyMessage(message);
    const m = message as JsonObject;
    if (c.kind === 'response') return this.#answered(m, json);
    if (c.kind === 'notification') {
      if (c.method === 'notifications/cancelled') this.#cancelled(m);
      return { ok: true };
    }
    if (c.kind !== 'request' || c.id === undefined || c.id === null) return { ok: true };
    const params = isJsonObject(m.params) ? m.params : {};
    switch (c.method) {
      case 'initialize':
        return this.#initialize(c.id, params, options);
      case 'ping':
        return this.#reply(c.id, {});
      case 'logging/setLevel':
        if (typeof params.level === 'string') this.#logLevel = params.level;
        return this.#reply(c.id, {});
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        if (typeof params.uri === 'string') {
          if (c.method === 'resources/subscribe' && !this.#subscribed.has(params.uri) && this.#subscribed.size >= MAX_SUBSCRIPTIONS) {
            this.#replyError(c.id, new RetrofitError('RETROFIT_ERR_UPSTREAM_BUSY', [this.o.upstream, `a session subscribes to at most ${MAX_SUBSCRIPTIONS} resources`]));
            return { ok: true };
          }
          if (c.method === 'resources/subscribe') this.#subscribed.add(params.uri);
          else this.#subscribed.delete(params.uri);
          this.#openListen(options.headers ?? this.o.clientHeaders);
        }
        return this.#reply(c.id, {});
      default: {
        const call = newCall(c.id, m, json);
        this.#calls.set(idKey(c.id), call);
        return this.#post(call, options.headers ?? this.o.clientHeaders);
      }
    }
  }

  #reply(id: JsonRpcId, result: JsonObject): SendOutcome {
    this.frame(JSON.stringify({ jsonrpc: '2.0', id, result }));
    return { ok: true };
  }

  #replyError(id: JsonRpcId, error: RetrofitError): void {
    this.frame(JSON.stringify(error.toJsonRpc(id)));
  }

  /** The upstream's identity and capabilities, asked once per session. */
  async #discover(headers: HeaderMap): Promise<JsonObject | RetrofitError> {
    if (this.#discovered) return this.#discovered;
    const message: JsonObject = { jsonrpc: '2.0', id: 'mcp-retrofit-discover', method: 'server/discover', params: { _meta: this.#envelope() } };
    let found: JsonObject | RetrofitError = new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [this.o.upstream]);
    let answered = false;
    try {
      const res = await this.o.http.request({ method: 'POST', path: this.o.http.mapPath('', ''), headers: this.#headers(headers, 'server/discover', undefined), body: Buffer.from(JSON.stringify(message)), signal: this.abort.signal, headersTimeoutMs: this.o.timeoutMs });
      const body = decodedBody(res.headers, res.body);
      const read = (data: string): void => {
        const parsed: unknown = JSON.parse(data);
        if (!isJsonObject(parsed) || !('result' in parsed || 'error' in parsed)) return;
        if (isJsonObject(parsed.result)) found = parsed.result;
        // The answer is in: an upstream may keep its event stream open after it (its SHOULD, not a MUST).
        answered = true;
        body.destroy();
      };
      const reader = this.reader(read);
      if (mediaType(headerValue(res.headers as HeaderMap, 'content-type')) === 'text/event-stream') await readSseAnswer(body, reader);
      else await readJsonAnswer(body, reader);
    } catch (err) {
      if (!answered) found = failureError(err, failureKind(err), this.o.upstream, this.o.timeoutMs) ?? found;
    }
    if (!(found instanceof RetrofitError)) this.#discovered = found;
    return found;
  }

  async #initialize(id: JsonRpcId, params: JsonObject, options: SendOptions): Promise<SendOutcome> {
    if (isJsonObject(params.capabilities)) this.#capabilities = params.capabilities;
    if (isJsonObject(params.clientInfo)) this.#clientInfo = params.clientInfo;
    const headers = options.headers ?? this.o.clientHeaders;
    const found = await this.#discover(headers);
    if (found instanceof RetrofitError) {
      this.#replyError(id, found);
      return { ok: true };
    }
    this.#reply(id, initializeFromDiscover(found, params.protocolVersion, this.o.upstream));
    this.#openListen(headers);
    return { ok: true };
  }

  #envelope(): JsonObject {
    const meta: JsonObject = { [META_PROTOCOL_VERSION]: MODERN_REVISION, [META_CLIENT_CAPABILITIES]: this.#capabilities };
    if (this.#clientInfo) meta[META_CLIENT_INFO] = this.#clientInfo;
    if (this.#logLevel !== undefined) meta[META_LOG_LEVEL] = this.#logLevel;
    return meta;
  }

  #headers(client: HeaderMap, method: string, name: string | undefined): Record<string, string | string[]> {
    const out = this.headersFrom(client);
    out['mcp-protocol-version'] = MODERN_REVISION;
    out['mcp-method'] = method;
    if (name !== undefined) out['mcp-name'] = encodeHeaderValue(name);
    return out;
  }

  /** Send (or send again, with the client's input) one call. */
  async #post(call: Call, client: HeaderMap): Promise<SendOutcome> {
    const method = call.message.method as string;
    const params = isJsonObject(call.message.params) ? call.message.params : {};
    const field = NAMED[method];
    const name = field === undefined ? undefined : typeof params[field] === 'string' ? (params[field] as string) : undefined;
    const upstreamParams: JsonObject = { ...params, _meta: { ...(isJsonObject(params._meta) ? params._meta : {}), ...this.#envelope() } };
    if (call.attempt > 0) {
      upstreamParams.inputResponses = call.responses;
      if (call.requestState !== undefined) upstreamParams.requestState = call.requestState;
    }
    const id = call.attempt === 0 ? call.clientId : `${String(call.clientId)}~retry-${call.attempt}`;
    const body = stringifyKept({ jsonrpc: '2.0', id, method, params: upstreamParams }, requestTrail(call));
    let res;
    try {
      res = await this.o.http.request({ method: 'POST', path: this.o.http.mapPath('', ''), headers: this.#headers(client, method, name), body: Buffer.from(body), signal: call.abort.signal, headersTimeoutMs: this.o.timeoutMs });
    } catch (err) {
      this.#forget(call);
      if (call.abort.signal.aborted) return { ok: true };
      const kind = this.abort.signal.aborted ? 'aborted' : failureKind(err);
      return { ok: false, error: failureError(err, kind === 'aborted' ? 'unreachable' : kind, this.o.upstream, this.o.timeoutMs)! };
    }
    const reader = this.frames((data) => this.#fromCall(call, data));
    const type = mediaType(headerValue(res.headers as HeaderMap, 'content-type'));
    const attempt = call.attempt;
    void this.read(decodedBody(res.headers, res.body), type === 'text/event-stream' ? readSseAnswer : readJsonAnswer, reader, 'debug').then(async (whole) => {
      // Messages of this answer still being reshaped on the worker (the last one chains the others).
      await call.reshaping;
      // Sent again already (an input_required with nothing to ask goes again at once): the answer is the new attempt's to give.
      if (this.#calls.get(idKey(call.clientId)) !== call || call.waiting.size > 0 || call.abort.signal.aborted || call.attempt !== attempt) return;
      this.#forget(call);
      // A stream that broke before the call's result: reported as reset, so the session answers it at once with
      // UPSTREAM_RESET (and counts it), as on the other HTTP links.
      if (!whole) this.dropped({ reason: 'reset', bytes: 0, id: call.clientId });
      // An answer that ended without the call's result: it is owed one.
      else this.#replyError(call.clientId, new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [this.o.upstream], { cause: new Error(`HTTP ${res.statusCode} ended without an answer`) }));
    });
    return { ok: true };
  }

  /**
   * A message of a call's answer. Text is reshaped here; a large one (bytes, past OFFLOAD_BYTES) on the
   * pipeline's worker, so that neither its parse nor its serialisation holds the event loop (done here only
   * when no worker can take it). The messages after it wait for it, in order, and so does the call's stream
   * before deciding whether the call was answered.
   */
  #fromCall(call: Call, data: string | Buffer): void {
    const next = call.reshaping ? call.reshaping.then(() => this.#fromCallNow(call, data)) : this.#fromCallNow(call, data);
    call.reshaping = next?.catch((err: unknown) => this.o.log.error({ err, bytes: data.length }, 'a message of a 2026-07-28 answer could not be handled; dropped'));
  }

  #fromCallNow(call: Call, data: string | Buffer): Promise<void> | undefined {
    const job = typeof data === 'string' ? undefined : this.o.reshape?.(data, call.clientId);
    if (!job) {
      this.#reshaped(call, data, typeof data === 'string' ? sessionAnswer(data, call.clientId) : reshapeAnswer(data, call.clientId));
      return undefined;
    }
    this.o.log.debug({ bytes: data.length }, 'a large 2026-07-28 answer reshaped on a worker');
    return job.then(
      (out) => this.#reshaped(call, data, out),
      (err: unknown) => {
        this.o.log.warn({ err, bytes: data.length }, 'reshaping a large 2026-07-28 answer on the worker failed; reshaped on the event loop');
        this.#reshaped(call, data, reshapeAnswer(data, call.clientId));
      },
    );
  }

  #reshaped(call: Call, data: string | Buffer, out: SessionAnswer | Reshaped<Buffer>): void {
    if (!this.alive) return;
    switch (out.kind) {
      case 'pass':
        // A notification on the call's answer stream: the call's, whatever else is in flight.
        return this.frame(data, call.clientId);
      case 'request':
        this.o.log.warn({ method: out.method }, 'the 2026-07-28 upstream sent a request on an answer stream; dropped');
        return;
      case 'deep': {
        // Nothing may recurse over it: dropped as the other links drop it (`depth`); a response (its ends show an
        // id) is the call's answer, and the call gets an error.
        const answers = sniffResponseId(endsOf(data)) !== undefined && this.#calls.get(idKey(call.clientId)) === call;
        if (answers) this.#forget(call);
        return this.dropped({ reason: 'depth', bytes: data.length, ...(answers && { id: call.clientId }) });
      }
      case 'input':
        if (this.#calls.get(idKey(call.clientId)) === call) this.#inputRequired(call, out.result, out.literals);
        return;
      default:
        if (this.#calls.get(idKey(call.clientId)) !== call) return;
        this.#forget(call);
        this.frame('json' in out ? out.json : out.bytes);
        // Answered: its answer streams (this one, and an input_required round's) are closed, not left to the
        // upstream, which may keep an event stream open after its answer (a connection per call, for ever).
        call.abort.abort();
    }
  }

  /**
   * The upstream needs the client's input: each input request becomes a request on the client's session, its
   * number literals as the upstream wrote them (`literals`: the result's).
   */
  #inputRequired(call: Call, result: JsonObject, literals: LiteralTrail | undefined): void {
    if (call.attempt >= MAX_INPUT_ROUNDS) {
      this.#forget(call);
      const reason = `still required input after ${MAX_INPUT_ROUNDS} rounds`;
      this.o.log.warn({ id: call.clientId, method: call.message.method }, `the 2026-07-28 upstream ${reason}; the request fails`);
      return this.#replyError(call.clientId, new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [this.o.upstream], { data: { reason } }));
    }
    call.requestState = typeof result.requestState === 'string' ? result.requestState : undefined;
    call.responses = {};
    const requests = isJsonObject(result.inputRequests) ? Object.entries(result.inputRequests).slice(0, MAX_INPUTS) : [];
    for (const [key, request] of requests) {
      if (!isJsonObject(request) || typeof request.method !== 'string') continue;
      this.#asked += 1;
      const id = `mrtr-${this.#asked}`;
      this.#asks.set(id, { call, key });
      call.waiting.add(key);
      const trail = literals?.children.get('inputRequests')?.children.get(key);
      this.frame(stringifyKept({ jsonrpc: '2.0', id, method: request.method, ...(request.params !== undefined && { params: request.params }) }, trail), call.clientId);
    }
    // Nothing to ask (only state to echo): the request goes again at once.
    if (call.waiting.size === 0) this.#retry(call);
  }

  /** The client answered one of the requests made of input requests. */
  #answered(message: JsonObject, json: string): SendOutcome {
    const id = message.id;
    const ask = typeof id === 'string' ? this.#asks.get(id) : undefined;
    if (!ask) return { ok: true };
    this.#asks.delete(id as string);
    const { call, key } = ask;
    // An error answer has no place among inputResponses: left out, the upstream asks again or gives up.
    if ('result' in message) {
      call.responses[key] = message.result as Json;
      const literals = trailOf(json)?.children.get('result');
      if (literals) call.responseLiterals.set(key, literals);
      else call.responseLiterals.delete(key);
    }
    call.waiting.delete(key);
    if (call.waiting.size === 0 && this.#calls.get(idKey(call.clientId)) === call) this.#retry(call);
    return { ok: true };
  }

  #retry(call: Call): void {
    call.attempt += 1;
    void this.#post(call, this.o.clientHeaders).then((outcome) => {
      if (!outcome.ok) this.#replyError(call.clientId, outcome.error);
    });
  }

  #cancelled(message: JsonObject): void {
    const params = isJsonObject(message.params) ? message.params : {};
    const id = params.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const call = this.#calls.get(idKey(id));
    if (!call) return;
    this.#forget(call);
    // Closing the answer stream is the revision's cancellation.
    call.abort.abort();
  }

  #forget(call: Call): void {
    if (this.#calls.get(idKey(call.clientId)) === call) this.#calls.delete(idKey(call.clientId));
    for (const [id, ask] of this.#asks) if (ask.call === call) this.#asks.delete(id);
  }

  /** (Re)open the listen stream for what the upstream announces and the client subscribed to. */
  #openListen(client: HeaderMap): void {
    this.#listen?.abort();
    this.#listen = undefined;
    if (this.#relisten) clearTimeout(this.#relisten);
    this.#relisten = undefined;
    if (!this.alive) return;
    const caps = isJsonObject(this.#discovered?.capabilities) ? this.#discovered.capabilities : {};
    const flag = (k: string, f: string): boolean => isJsonObject(caps[k]) && (caps[k] as JsonObject)[f] === true;
    const filter: JsonObject = {};
    if (flag('tools', 'listChanged')) filter.toolsListChanged = true;
    if (flag('prompts', 'listChanged')) filter.promptsListChanged = true;
    if (flag('resources', 'listChanged')) filter.resourcesListChanged = true;
    if (this.#subscribed.size > 0 && flag('resources', 'subscribe')) filter.resourceSubscriptions = [...this.#subscribed];
    if (Object.keys(filter).length === 0) return;
    const abort = new AbortController();
    this.#listen = abort;
    const message = { jsonrpc: '2.0', id: 'mcp-retrofit-listen', method: 'subscriptions/listen', params: { notifications: filter, _meta: this.#envelope() } };
    const again = (): void => {
      if (this.#listen !== abort || !this.alive) return;
      this.#relisten = setTimeout(() => this.#openListen(client), this.#relistenMs);
      this.#relisten.unref();
      this.#relistenMs = Math.min(this.#relistenMs * 2, MAX_RELISTEN_MS);
    };
    void (async () => {
      try {
        const res = await this.o.http.request({ method: 'POST', path: this.o.http.mapPath('', ''), headers: this.#headers(client, 'subscriptions/listen', undefined), body: Buffer.from(JSON.stringify(message)), signal: abort.signal, headersTimeoutMs: this.o.timeoutMs });
        if (res.statusCode !== 200 || mediaType(headerValue(res.headers as HeaderMap, 'content-type')) !== 'text/event-stream') {
          await res.body.dump().catch(() => {});
          this.o.log.info({ status: res.statusCode }, 'the 2026-07-28 upstream refused subscriptions/listen; the session\'s server stream gets the gateway\'s own messages only');
          return;
        }
        const opened = Date.now();
        await this.read(decodedBody(res.headers, res.body), readSseAnswer, this.reader((data) => {
          const json = listenedNotification(data);
          if (json !== undefined) this.frame(json);
        }), 'debug');
        // Only a stream that held for a while resets the backoff: one the upstream accepts and ends at once is
        // opened again ever later, not every second for as long as the session lasts.
        if (Date.now() - opened >= MAX_RELISTEN_MS) this.#relistenMs = 1000;
      } catch (err) {
        if (!abort.signal.aborted) this.o.log.debug({ err }, 'the listen stream of the 2026-07-28 upstream failed');
      }
      again();
    })();
  }

  async close(): Promise<void> {
    if (!this.alive) return;
    this.#listen?.abort();
    if (this.#relisten) clearTimeout(this.#relisten);
    for (const call of this.#calls.values()) call.abort.abort();
    this.#calls.clear();
    this.#asks.clear();
    this.stopReading();
    this.end({ kind: 'requested', reason: 'session closed' });
  }
}
