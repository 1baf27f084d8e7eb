/**
 * One proxied exchange with a Streamable HTTP upstream, in steps: read the body and classify it once; register
 * with the session what awaits its answer (src/session/state.ts decides: initialize, and what may be
 * rewritten); send the original bytes with the headers the upstream's revision understands; relay the answer
 * (./relay.ts: SSE block by block, JSON whole only when it may be rewritten, anything else streamed); and
 * finish — the one place where an exchange ends: the session learnt, the stream untracked, the exchange
 * counted and logged once.
 */
import type { ServerResponse } from 'node:http';
import type { HttpUpstreamConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';
import type { ClassifiedBody, ClassifiedMessage } from '../../jsonrpc/classify.js';
import { LazyLog, type Logger } from '../../log.js';
import { detectRevision, isResumable, isStateless, type RevisionSource } from '../../protocol/era.js';
import { holdsListen, listensForToolChanges, subscriptionListChanged } from '../../protocol/list-changed.js';
import { clientLabel, requestedRevision } from '../../protocol/negotiate.js';
import type { Pending } from '../../session/pending.js';
import { SessionState } from '../../session/state.js';
import { SessionTable } from '../../session/table.js';
import type { RequestTrace } from '../../telemetry/spans.js';
import { Cancel } from '../../upstream/cancel.js';
import { mapUpstreamFailure } from '../../upstream/errors.js';
import type { UpstreamAnswer } from '../../upstream/exchange.js';
import { headerValue, mediaType, toClientHeaders } from '../../upstream/headers.js';
import { negotiatedReporter, snapshot, type GatewayContext, type Snapshot } from '../context.js';
import { rewriteChallenge } from '../oauth/challenge.js';
import { traceRequest, tracedUpstream } from '../trace.js';
import { parseBody } from '../server/body.js';
import { countRevision, finishExchange, labelOf } from '../server/exchange-log.js';
import type { GatewayRequest } from '../server/gate.js';
import { isMintedSessionId } from '../server/ids.js';
import type { Tracked } from '../server/inflight.js';
import { pipeBody, writeError } from '../write.js';
import { mintSession } from './minted.js';
import { readAndRewriteJson, type RelayContext } from './relay.js';
import { redirectError } from './redirect.js';
import { relayRefusal } from './refusal.js';
import { relaySse, type RelayEnd } from './sse-relay.js';
import type { ServerStream } from './streams.js';
import type { ForwardOptions, ProxyTarget } from './target.js';
import { exchangeHeaders } from './upstream-headers.js';

type Verb = 'GET' | 'POST' | 'DELETE' | 'OPTIONS';

/**
 * Proxy one request to the upstream and answer on `res`, which nothing else writes to. Upstream failures are
 * answered with the gateway's errors (src/upstream/errors.ts), or end the connection once bytes went out.
 */
export function forward(request: GatewayRequest, res: ServerResponse, ctx: GatewayContext, target: ProxyTarget, options: ForwardOptions): Promise<void> {
  return new ProxyExchange(request, res, ctx, target, options).run();
}

class ProxyExchange {
  readonly #request: GatewayRequest;
  readonly #res: ServerResponse;
  readonly #ctx: GatewayContext;
  readonly #target: ProxyTarget;
  readonly #options: ForwardOptions;
  readonly #snap: Snapshot<HttpUpstreamConfig>;
  readonly #started = performance.now();
  readonly #verb: Verb;
  /** The client's Mcp-Session-Id and MCP-Protocol-Version. */
  readonly #session: string | undefined;
  readonly #header: string | undefined;
  /** The client's Mcp-Session-Id is one the gateway minted (./minted.ts): the upstream never sees it. */
  readonly #minted: boolean;
  readonly #cancel = new Cancel();
  /** Bound only when something else than the request line is logged (binding is a cost per exchange). */
  #log: LazyLog | undefined;
  #body: Buffer | undefined;
  #classified: ClassifiedBody | undefined;
  /** The body as text (what #classified was parsed from), for a traced body written again. */
  #text = '';
  #method: string;
  /** What the session knew before this exchange, and the state this exchange registers with. */
  #known: SessionState | undefined;
  /** This exchange made the session's entry (the gateway had not seen the session before). */
  #created = false;
  #state: SessionState | undefined;
  #revision: { revision: string; source: RevisionSource } | undefined;
  /** The client profile the first message's answer is shaped for, when one matched. */
  #profile: string | undefined;
  /** The spans of this exchange's requests, when tracing is on. */
  #traces: Map<ClassifiedMessage, RequestTrace> | undefined;
  /** This exchange's own requests awaited in the session. */
  readonly #own: Pending[] = [];
  #tracked: Tracked | undefined;
  #stream: ServerStream | undefined;
  #assigned: string | undefined;
  #status = 0;
  /** The gateway's own error, when it answered with one. */
  #error: RetrofitError | undefined;
  #aborted = false;
  /** The exchange was handed to another edge (refusedInitialize), which answers and logs it. */
  #handedOver = false;

  constructor(request: GatewayRequest, res: ServerResponse, ctx: GatewayContext, target: ProxyTarget, options: ForwardOptions) {
    this.#request = request;
    this.#res = res;
    this.#ctx = ctx;
    this.#target = target;
    this.#options = options;
    this.#snap = snapshot<HttpUpstreamConfig>(ctx, target.name, request);
    this.#verb = request.method as Verb;
    this.#method = this.#verb;
    this.#session = headerValue(request.headers, 'mcp-session-id');
    this.#header = headerValue(request.headers, 'mcp-protocol-version');
    this.#minted = this.#session !== undefined && isMintedSessionId(this.#session);
  }

  async run(): Promise<void> {
    try {
      if (this.#minted && this.#verb === 'DELETE' && this.#options.mcp) return this.#endMinted();
      if (!this.#read()) return;
      this.#register();
      this.#open();
      const answer = await this.#send();
      // A small JSON answer that came whole is relayed synchronously: no promise to wait for.
      const relayed = answer && this.#relay(answer);
      if (relayed) await relayed;
    } finally {
      this.#finish();
    }
  }

  /** The exchange's log; its pino child is bound when a line is written (LazyLog). */
  #lazyLog(): LazyLog {
    return (this.#log ??= new LazyLog(this.#ctx.logger, () => ({ reqId: this.#request.id, upstream: this.#target.name, ...(this.#session !== undefined && { session: this.#session }) })));
  }

  #logger(): Logger {
    return this.#lazyLog().logger;
  }

  /** Step 1: a POST's body, checked and classified once. False when it was refused (answered here). */
  #read(): boolean {
    if (this.#verb !== 'POST' || !this.#options.mcp) return true;
    const read = parseBody(this.#request.headers, this.#request.body);
    if (read instanceof RetrofitError) {
      this.#answer(read);
      return false;
    }
    this.#body = read.bytes;
    this.#classified = read.body;
    this.#text = read.text;
    this.#method = labelOf(read.body, this.#verb);
    return true;
  }

  get #first(): ClassifiedMessage | undefined {
    return this.#classified?.messages[0];
  }

  /** Step 2: the session's state, and every request of the body registered with it. */
  #register(): void {
    if (!this.#options.mcp) return;
    const { name } = this.#target;
    const bridge = this.#snap.upstream.bridge;
    const session = this.#session;
    // Shared with the session's other exchanges (GET replays of answers) when it has an id; a POST of a session not
    // seen before makes its entry; a minted one is known from its initialize (./minted.ts), or served without it.
    if (this.#minted) this.#known = this.#mintedSession();
    else if (session !== undefined && this.#verb === 'POST') ({ state: this.#known, created: this.#created } = this.#ctx.sessions.take(name, session, bridge));
    else this.#known = session === undefined ? undefined : this.#ctx.sessions.get(name, session);
    this.#state = this.#known;
    const first = this.#first;
    this.#revision = detectRevision({ meta: first?.metaRevision, header: this.#header, session: this.#known?.clientRevision });
    for (const m of this.#classified?.messages ?? []) {
      if (m.kind !== 'request') continue;
      // Only an initialize answer negotiates (and may be bridged, which is logged): no reporter otherwise.
      this.#state ??= new SessionState(m.method === 'initialize' ? { ...SessionTable.stateOptions(name, bridge), onNegotiated: negotiatedReporter(this.#ctx, name, this.#logger()) } : SessionTable.stateOptions(name, bridge));
      // Traced: the request's spans, which end with the exchange (#finish).
      const trace = traceRequest(this.#ctx, m, this.#snap.upstream, { revision: this.#revision?.revision, session: this.#session, headers: this.#request.headers });
      if (trace) (this.#traces ??= new Map()).set(m, trace);
      const registered = this.#state.expect(m, { header: this.#header, policy: this.#snap.policy, ...(trace && { trace }) });
      if (m === first) {
        this.#revision = registered;
        this.#profile = registered.profile;
      }
      if (registered.pending) this.#own.push(registered.pending);
    }
    countRevision(this.#ctx.metrics, name, this.#revision.revision, this.#revision.source);
  }

  /** A minted session's state, when this replica gave the id; a 2026-07-28 request is never matched to a session. */
  #mintedSession(): SessionState | undefined {
    if (isStateless(detectRevision({ meta: this.#first?.metaRevision, header: this.#header }).revision)) return undefined;
    return this.#ctx.sessions.get(this.#target.name, this.#session!);
  }

  /** Step 3: in flight (shutdown ends it), and cancelled when the client goes away. */
  #open(): void {
    // GET streams and subscriptions/listen never end on their own; discovery documents are ordinary requests.
    const longLived = this.#options.mcp && (this.#verb === 'GET' || (this.#classified !== undefined && holdsListen(this.#classified.messages)));
    this.#tracked = this.#ctx.inflight.start(this.#cancel, longLived);
    // A client that goes away takes its upstream request with it (on 2026-07-28 that is cancellation). Not
    // removed at the end: 'close' comes once the response is finished, when aborting is a no-op.
    const res = this.#res;
    res.on('close', () => {
      if (!res.writableFinished) this.#cancel.abort();
    });
    // The client may already be gone (it closed while its body was being read): do not open a stream for nobody.
    if (this.#request.socket.destroyed) this.#cancel.abort();
  }

  /** Step 4: the request upstream. Undefined when it failed (answered here, or the client is gone). */
  async #send(): Promise<UpstreamAnswer | undefined> {
    const headers = exchangeHeaders(this.#request.headers, { host: this.#target.upstream.host, configured: this.#snap.upstream.headers, mcp: this.#options.mcp, gatewayAuth: this.#snap.loaded.config.auth !== undefined, header: this.#header, negotiated: this.#known?.negotiated });
    if (this.#minted) delete headers['mcp-session-id'];
    // Traced (only then): each request's context in the body's `_meta`, the first one's in `traceparent`.
    if (this.#traces) this.#body = tracedUpstream(this.#classified!, this.#text, this.#traces, headers);
    try {
      const answer = await this.#target.upstream.exchange({ method: this.#verb, path: this.#options.path, headers, body: this.#body }, this.#cancel, this.#snap.upstream.timeoutMs);
      this.#ctx.metrics.latency.observe(this.#target.name, this.#method, (performance.now() - this.#started) / 1000);
      return answer;
    } catch (err) {
      this.#failed(err);
      return undefined;
    }
  }

  /** Step 5: the answer to the client, by its media type (a promise only while it is still under way). */
  #relay(answer: UpstreamAnswer): Promise<void> | undefined {
    const { name } = this.#target;
    const status = answer.statusCode;
    this.#status = status;
    this.#assigned = headerValue(answer.headers, 'mcp-session-id');
    if (this.#session === undefined && this.#first?.method === 'initialize') this.#mint(answer);
    const session = this.#session;
    // The upstream's 404 is not of a minted session, which it never saw.
    if (session !== undefined && !this.#minted && (status === 404 || (this.#verb === 'DELETE' && status < 300))) this.#ctx.sessions.forget(name, session);
    // OAuth: a 401/403 challenge names the gateway's metadata URL for this upstream (src/http/oauth/challenge.ts).
    rewriteChallenge(this.#request, this.#snap.upstream, status, answer.headers);
    const redirect = this.#options.mcp ? redirectError(name, answer) : undefined;
    if (redirect) {
      answer.body.destroy();
      this.#failed(redirect);
      return undefined;
    }
    const type = this.#options.mcp ? mediaType(headerValue(answer.headers, 'content-type')) : undefined;
    const state = this.#state;
    let relayed: Promise<void> | undefined;
    try {
      if (status === 400 && type === 'application/json' && this.#options.refusedInitialize && this.#first?.method === 'initialize') relayed = this.#refused(answer);
      else if (type === 'text/event-stream') relayed = this.#relaySse(answer);
      else if (type === 'application/json' && state !== undefined && !state.pending.empty) relayed = this.#relayJson(answer);
      else relayed = this.#pipe(answer);
    } catch (err) {
      this.#brokenMidBody(err);
      return undefined;
    }
    return relayed?.catch((err: unknown) => this.#brokenMidBody(err));
  }

  /** An initialize answer without the upstream's session id, for a client a profile matched, gets one of ours. */
  #mint(answer: UpstreamAnswer): void {
    const minted = mintSession({ first: this.#first, batch: this.#classified?.batch === true, status: answer.statusCode, assigned: this.#assigned, state: this.#state, policy: this.#snap.policy, prefix: this.#snap.loaded.config.sessionIdPrefix });
    if (minted === undefined) return;
    answer.headers['mcp-session-id'] = minted;
    this.#assigned = minted;
  }

  /** The DELETE of a minted session: the gateway's to end, since the upstream never issued it. */
  #endMinted(): void {
    this.#ctx.sessions.forget(this.#target.name, this.#session!);
    this.#status = 200;
    this.#res.writeHead(200).end();
  }

  /** Mid-body: headers are out, so the only honest signal left is ending the connection. */
  #brokenMidBody(err: unknown): void {
    this.#aborted = this.#cancel.aborted;
    if (!this.#aborted) this.#logger().warn({ err, method: this.#method }, 'upstream stream failed mid-body');
    this.#res.destroy();
  }

  /**
   * Anything the session need not see, streamed as it arrives. No answer to this body's requests comes in it (an
   * HTML error page, a 202): they are no longer awaited, or a client could fill the pending table with them.
   */
  async #pipe(answer: UpstreamAnswer): Promise<void> {
    this.#release();
    const res = this.#res;
    res.writeHead(answer.statusCode, toClientHeaders(answer.headers, { dropLength: false }));
    if (await pipeBody(res, answer.body)) res.end();
    else this.#aborted = true;
  }

  /** An initialize the upstream refused: taken over by the hook, or passed on as it came (./refusal.ts). */
  async #refused(answer: UpstreamAnswer): Promise<void> {
    const outcome = await relayRefusal(answer, this.#res, this.#options.refusedInitialize!, () => this.#release(), { upstream: this.#target.name, timeoutMs: this.#snap.upstream.timeoutMs });
    // `handed`: another edge answers the client, and logs the exchange.
    if (outcome.kind === 'handed') this.#handedOver = true;
    else if (outcome.kind === 'aborted') this.#aborted = true;
    else if (outcome.kind === 'failed') this.#answerFailure(outcome.error);
  }

  /** An SSE answer, block by block. Synchronous when it came whole and nothing had to wait (a small answer). */
  #relaySse(answer: UpstreamAnswer): Promise<void> | undefined {
    const res = this.#res;
    res.writeHead(answer.statusCode, toClientHeaders(answer.headers, { dropLength: true }));
    // Headers go out at once unless the first event is already here to go with them (one write, not two).
    if (!answer.body.buffered) res.flushHeaders();
    const first = this.#first;
    if (this.#verb === 'GET') this.#stream = this.#target.streams.track(res);
    else if (answer.statusCode === 200 && this.#classified && !this.#classified.batch) {
      const listen = listensForToolChanges(first);
      if (listen !== undefined) this.#stream = this.#target.streams.track(res, subscriptionListChanged(listen));
    }
    const ended = relaySse(answer.body, res, this.#relayContext(), (err) => this.#mapFailure(err));
    if (ended instanceof Promise) return ended.then((end) => this.#sseEnded(end));
    this.#sseEnded(ended);
    return undefined;
  }

  /** The relay ended the response (./sse-relay.ts); cut short, it was the client leaving or the upstream failing. */
  #sseEnded(ended: RelayEnd): void {
    if (ended.kind === 'gone' || (ended.kind === 'failed' && !ended.answered)) this.#aborted = this.#cancel.aborted || ended.kind === 'gone';
  }

  /** A JSON answer through the session. Synchronous when the whole body is already here (a small answer). */
  #relayJson(answer: UpstreamAnswer): Promise<void> | undefined {
    let read: Buffer | Promise<Buffer>;
    try {
      read = readAndRewriteJson(answer.body, this.#relayContext());
    } catch (err) {
      this.#failed(err);
      return undefined;
    }
    if (read instanceof Promise) {
      return read.then(
        (bytes) => this.#sendJson(answer, bytes),
        (err: unknown) => this.#failed(err),
      );
    }
    this.#sendJson(answer, read);
    return undefined;
  }

  #sendJson(answer: UpstreamAnswer, bytes: Buffer): void {
    // A JSON answer is the only one: whatever of ours it did not answer, nothing will.
    this.#release();
    const out = toClientHeaders(answer.headers, { dropLength: true });
    out['content-length'] = bytes.length;
    this.#res.writeHead(answer.statusCode, out);
    this.#res.end(bytes);
  }

  /** Failed before its answer: the client gets the error, and nothing of ours is awaited any longer. */
  #failed(err: unknown): void {
    this.#release();
    this.#answerFailure(err);
  }

  #relayContext(): RelayContext {
    // A plain literal: an accessor here made V8 build the object the slow way.
    return { state: this.#state, rewriter: this.#ctx.rewriter, log: this.#lazyLog(), max: this.#snap.loaded.config.limits.maxResultBytes, upstream: this.#target.name, timeoutMs: this.#snap.upstream.timeoutMs, own: this.#own, stream: this.#stream, resumes: this.#revision !== undefined && isResumable(this.#revision.revision) };
  }

  /**
   * An upstream failure as the client's error (mapped, logged and counted once: src/upstream/errors.ts). One the
   * gateway caused by shutting down is the client's to hear: its stream then ends cleanly, not cut.
   */
  #mapFailure(err: unknown): RetrofitError | undefined {
    if (this.#cancel.byShutdown) return new RetrofitError('RETROFIT_ERR_SHUTTING_DOWN', [], { cause: err });
    return mapUpstreamFailure(err, { upstream: this.#target.name, timeoutMs: this.#snap.upstream.timeoutMs, method: this.#method, log: this.#logger(), metrics: this.#ctx.metrics });
  }

  /** Answer a failure before anything was sent, or end the connection when the client is gone. */
  #answerFailure(err: unknown): void {
    const mapped = this.#mapFailure(err);
    if (!mapped) {
      this.#aborted = true;
      this.#res.destroy();
      return;
    }
    this.#answer(mapped, this.#single());
  }

  /** The whole answer is the gateway's own error, to `request` (its id as the client wrote it) or to nobody. */
  #answer(error: RetrofitError, request?: ClassifiedMessage): void {
    this.#status = error.status;
    this.#error = error;
    writeError(this.#res, error, request?.id ?? null, {}, request?.idLiteral);
  }

  /** The body's only request, for an error answer (none for a batch or a notification). */
  #single(): ClassifiedMessage | undefined {
    return !this.#classified?.batch && this.#first?.kind === 'request' ? this.#first : undefined;
  }

  #release(): void {
    for (const p of this.#own) this.#state?.pending.forget(p);
  }

  /** The one place an exchange ends. */
  #finish(): void {
    if (this.#handedOver) {
      this.#tracked?.end();
      return;
    }
    const { name } = this.#target;
    const state = this.#state;
    // The initialize answer named a new session: what was learnt of it goes where its next exchanges look.
    if (this.#session === undefined && this.#assigned !== undefined && state?.negotiated) this.#ctx.sessions.open(name, this.#assigned, this.#snap.upstream.bridge).adopt(state.negotiated, state.client);
    // An entry this exchange made goes with its client (the client's DELETE may have overtaken this POST).
    if (this.#created && this.#aborted) {
      this.#release();
      this.#ctx.sessions.dropIfIdle(name, this.#session!);
    }
    if (this.#stream) this.#target.streams.untrack(this.#stream);
    this.#tracked?.end();
    const first = this.#first;
    if (this.#traces) for (const t of this.#traces.values()) t.end({ rpcError: this.#error?.rpcCode, errorType: this.#error?.code, aborted: this.#aborted });
    finishExchange(this.#ctx.logger, this.#ctx.metrics, {
      reqId: this.#request.id,
      upstream: name,
      session: this.#session,
      method: this.#method,
      tool: first?.method === 'tools/call' ? first.name : undefined,
      profile: this.#profile,
      revision: this.#revision?.revision,
      revisionSource: this.#revision?.source,
      requested: first?.method === 'initialize' ? requestedRevision(first.message) : undefined,
      client: first?.method === 'initialize' ? clientLabel(first.message) : undefined,
      path: this.#options.mcp ? undefined : this.#request.path,
      status: this.#status,
      rpcError: this.#error?.rpcCode,
      errorCode: this.#error?.code,
      aborted: this.#aborted,
      started: this.#started,
    });
  }
}
