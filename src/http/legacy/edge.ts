/**
 * The legacy HTTP+SSE edge (the 2024-11-05 transport) for clients of `sse:` upstreams that speak it: a GET
 * on the upstream's path opens a gateway-owned session over an SSE link (src/upstream/sse-link.ts) and gets
 * the upstream's stream with its `endpoint` event pointing at `<path>/message?sessionId=…`; POSTs there are
 * registered with the session and forwarded, and their answers, rewritten where they change, arrive on the
 * GET stream. What is not rewritten is forwarded byte for byte (comments and other events included).
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { legacyMessagePath } from '../../config/routes.js';
import type { SseUpstreamConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';
import { messageTexts } from '../../jsonrpc/batch-elements.js';
import { idKey, type ClassifiedMessage, type JsonRpcId } from '../../jsonrpc/classify.js';
import { OwnedSession, type ClientSide, type Delivery } from '../../session/owned.js';
import type { Pending } from '../../session/pending.js';
import { SessionState } from '../../session/state.js';
import { encodeEvent, eventLength, messageEvent, messageEventBytes, type EventBytes } from '../../stream/sse-encode.js';
import { headerValue, toClientHeaders } from '../../upstream/headers.js';
import type { SendOutcome } from '../../upstream/link.js';
import { LinkRefused } from '../../upstream/sse-link.js';
import type { RequestTrace } from '../../telemetry/spans.js';
import { negotiatedReporter, snapshot, type GatewayContext } from '../context.js';
import { traceRequest, upstreamBodyText } from '../trace.js';
import type { FrontSessions } from '../front/registry.js';
import { rewriteChallenge } from '../oauth/challenge.js';
import { parseBody } from '../server/body.js';
import { preflightRoute } from '../server/cors.js';
import { countRevision, finishExchange, finishWhenClosed, labelOf, type ExchangeRecord } from '../server/exchange-log.js';
import type { Gate, GatewayRequest } from '../server/gate.js';
import { sessionId } from '../server/ids.js';
import { writeBody, writeError, writeEvent } from '../write.js';
import { sseLink } from './link.js';

/** Most traced requests a legacy connection keeps a span open for. */
const MAX_TRACED = 1000;
/** Most bytes of what the upstream sent before its endpoint event kept for the client's stream (the rest dropped). */
const MAX_PRELUDE_BYTES = 64 * 1024;

/** One legacy client's connection: its GET stream is where everything for it goes. */
class LegacyConnection implements ClientSide<undefined> {
  readonly id: string;
  readonly owned: OwnedSession<undefined>;
  readonly #res: ServerResponse;
  /** A 'drain' listener is on the stream. */
  #watching = false;
  /** Traced requests waiting for their answer on this stream, by id (bounded by the pending table). */
  readonly #traces = new Map<string, RequestTrace>();
  /**
   * What came for the client before its stream opened (an upstream's prelude before its endpoint event: a
   * comment, `retry:`), written after the stream's headers (undefined once open); MAX_PRELUDE_BYTES at most.
   */
  #prelude: EventBytes[] | undefined = [];
  #preludeBytes = 0;

  constructor(id: string, owned: OwnedSession<undefined>, res: ServerResponse) {
    this.id = id;
    this.owned = owned;
    this.#res = res;
    owned.attach(this);
  }

  deliver(_stream: undefined, delivery: Delivery): void {
    this.#write(delivery.raw ?? messageEventBytes(delivery.json));
    if (this.#traces.size === 0 || delivery.answers === undefined) return;
    // The request's span ends with its answer on the stream (the POST that carried it only got 202).
    const key = idKey(delivery.answers);
    const trace = this.#traces.get(key);
    if (!trace) return;
    this.#traces.delete(key);
    trace.end({ rpcError: delivery.error?.code, errorType: typeof delivery.error?.data === 'string' ? delivery.error.data : undefined });
  }

  /** A traced request now in flight on this connection. */
  traced(id: JsonRpcId, trace: RequestTrace): void {
    // The pending table bounds what can wait; a request it forgot ends its span here rather than never.
    if (this.#traces.size >= MAX_TRACED) {
      const [oldest, old] = this.#traces.entries().next().value as [string, RequestTrace];
      this.#traces.delete(oldest);
      old.end({ errorType: 'evicted' });
    }
    this.#traces.set(idKey(id), trace);
  }

  /** The stream ended: spans still open end as cancelled. */
  endTraces(): void {
    for (const trace of this.#traces.values()) trace.end({ aborted: true });
    this.#traces.clear();
  }

  /** Asked by the session after each delivery and on each drain. */
  backedUp(): boolean {
    return !this.#res.destroyed && this.#res.writableNeedDrain;
  }

  abandon(): void {
    // Every answer shares the one stream: nothing to end.
  }

  passthrough(raw: Buffer): void {
    this.#write(raw);
  }

  /** A message of the gateway's own (tools/list_changed after a reload). */
  notify(json: string): void {
    this.#write(messageEvent(json));
  }

  /** The client's stream opens: its headers, what came before, then the endpoint event. */
  open(headers: OutgoingHttpHeaders, endpoint: EventBytes): void {
    const prelude = this.#prelude ?? [];
    this.#prelude = undefined;
    this.#res.writeHead(200, headers);
    for (const bytes of prelude) writeEvent(this.#res, bytes);
    this.#write(endpoint);
  }

  #write(bytes: EventBytes): void {
    const res = this.#res;
    if (res.destroyed || res.writableEnded) return;
    if (this.#prelude) {
      const size = eventLength(bytes);
      if (this.#preludeBytes + size <= MAX_PRELUDE_BYTES) {
        this.#prelude.push(bytes);
        this.#preludeBytes += size;
      }
      return;
    }
    // The session asks backedUp() after the delivery; 'drain' (which may come at once) makes it ask again.
    if (writeEvent(res, bytes) || this.#watching) return;
    this.#watching = true;
    res.once('drain', () => {
      this.#watching = false;
      this.owned.pressureChanged();
    });
  }
}

export interface LegacyEdge {
  /** GET on the upstream's path without a session: a legacy client's stream. */
  readonly get: (req: GatewayRequest, res: ServerResponse) => Promise<void>;
  /** Put a message of the gateway's own on every legacy stream; returns how many got it. */
  notifyAll(json: string): number;
  /** End every legacy stream and its link. */
  closeAll(): Promise<void>;
  /** Legacy connections and the requests they wait on (the debug endpoint's counts). */
  counts(): { legacyConnections: number; legacyPending: number };
}

/**
 * Register the legacy edge's message route; its GET is served on the upstream's path by the front
 * (./routes.ts). `sessions()` is the upstream's session registry: legacy connections count
 * towards its maxSessions.
 */
export function registerLegacy(app: FastifyInstance, gate: Gate, name: string, ctx: GatewayContext, sessions: () => FrontSessions): LegacyEdge {
  const first = snapshot<SseUpstreamConfig>(ctx, name);
  const messagePath = legacyMessagePath(first.upstream.path);
  const connections = new Map<string, LegacyConnection>();
  const log = ctx.logger.child({ upstream: name });

  async function get(req: GatewayRequest, res: ServerResponse): Promise<void> {
    const started = performance.now();
    await sessions().room(snapshot<SseUpstreamConfig>(ctx, name, req).upstream.timeoutMs);
    // Gone while it waited for a place: no connection to the upstream for nobody.
    if (res.destroyed) return finishExchange(ctx.logger, ctx.metrics, { reqId: req.id, upstream: name, method: 'GET', status: 0, aborted: true, started });
    const refused = sessions().admit();
    if (refused) {
      finishWhenClosed(res, ctx.logger, ctx.metrics, () => ({ reqId: req.id, upstream: name, method: 'GET', started, rpcError: refused.rpcCode, errorCode: refused.code }));
      return writeError(res, refused);
    }
    const release = sessions().hold();
    const snap = snapshot<SseUpstreamConfig>(ctx, name, req);
    const upstream = snap.upstream;
    const link = sseLink(ctx, name, snap, req.headers, log);
    // Set once the client's stream is open: before that, the GET is answered with the upstream's refusal.
    let streaming = false;
    const owned = new OwnedSession<undefined>({
      upstream: name,
      link,
      state: new SessionState<undefined>({ upstream: name, bridge: upstream.bridge, onNegotiated: negotiatedReporter(ctx, name, log) }),
      rewriter: ctx.rewriter,
      metrics: ctx.metrics,
      log,
      timeoutMs: () => snapshot(ctx, name).upstream.timeoutMs,
      maxResultBytes: () => ctx.generations.current.config.limits.maxResultBytes,
      onclose: () => {
        if (streaming) res.end();
      },
    });
    const conn = new LegacyConnection(sessionId(ctx.generations.current.config.sessionIdPrefix), owned, res);
    // The console lists a legacy connection as a session (the active-sessions gauge does not count it).
    ctx.console?.sessions.opened(name, conn.id, owned.state);
    finishWhenClosed(res, ctx.logger, ctx.metrics, () => ({ reqId: req.id, upstream: name, session: conn.id, method: 'GET', started, aborted: false }));
    const tracked = ctx.inflight.start({ abort: () => void owned.close('RETROFIT_ERR_SHUTTING_DOWN', 'shutting down') }, true);
    res.once('close', () => {
      ctx.console?.sessions.closed(owned.state);
      conn.endTraces();
      connections.delete(conn.id);
      release();
      tracked.end();
      void owned.close('RETROFIT_ERR_UPSTREAM_EXITED', 'the client closed its stream');
    });
    try {
      await link.ready;
    } catch (err) {
      if (err instanceof LinkRefused) {
        // Not a stream (401 with WWW-Authenticate, 404, …): the client sees the upstream's answer, an OAuth
        // challenge naming the gateway's metadata for this upstream.
        const headers = { ...err.answer.headers };
        rewriteChallenge(req, upstream, err.answer.status, headers);
        return writeBody(res, err.answer.status, toClientHeaders(headers, { dropLength: true }), err.answer.body);
      }
      return writeError(res, new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [name], { cause: err }));
    }
    if (res.destroyed) return;
    streaming = true;
    connections.set(conn.id, conn);
    conn.open(toClientHeaders(link.streamHeaders, { dropLength: true }), encodeEvent(link.endpointEvent ?? { event: 'endpoint' }, `${messagePath}?sessionId=${conn.id}`));
  }

  async function message(req: GatewayRequest, res: ServerResponse): Promise<void> {
    const facts: { -readonly [K in keyof ExchangeRecord]?: ExchangeRecord[K] } & { method: string } = { method: 'POST' };
    const id = new URLSearchParams(req.query).get('sessionId') ?? undefined;
    const conn = id === undefined ? undefined : connections.get(id);
    const started = performance.now();
    finishWhenClosed(res, ctx.logger, ctx.metrics, () => ({ reqId: req.id, upstream: name, session: id, started, ...facts }));
    const refuse = (error: RetrofitError, only: JsonRpcId = null): void => {
      facts.rpcError = error.rpcCode;
      facts.errorCode = error.code;
      writeError(res, error, only);
    };
    if (!conn) return refuse(new RetrofitError('RETROFIT_ERR_SESSION_NOT_FOUND'));
    const read = parseBody(req.headers, req.body);
    if (read instanceof RetrofitError) return refuse(read);
    facts.method = labelOf(read.body, 'POST');
    const first = read.body.messages[0];
    if (!read.body.batch && first?.method === 'tools/call') facts.tool = first.name;
    const snap = snapshot(ctx, name, req);
    const header = headerValue(req.headers, 'mcp-protocol-version');
    // An id still in flight on this connection (or twice in one batch) would get one answer for two requests:
    // refused, as the Streamable HTTP front refuses it, before anything reaches the upstream.
    const duplicate = conn.owned.state.pending.firstDuplicate(read.body.messages);
    if (duplicate) return refuse(new RetrofitError('RETROFIT_ERR_DUPLICATE_ID', [JSON.stringify(duplicate.id)]), duplicate.id ?? null);
    const registered: Pending<undefined>[] = [];
    const withheld = new Set<ClassifiedMessage>();
    // Traced: each request's span ends when its answer reaches the SSE stream, or when the POST fails.
    const traces = new Map<ClassifiedMessage, RequestTrace>();
    if (ctx.telemetry.tracer) res.once('close', () => {
      if (facts.rpcError !== undefined) for (const t of traces.values()) t.end({ rpcError: facts.rpcError, errorType: facts.errorCode });
    });
    for (const m of read.body.messages as readonly ClassifiedMessage[]) {
      if (m.kind === 'request') {
        const trace = ctx.telemetry.tracer ? traceRequest(ctx, m, snap.upstream, { revision: conn.owned.state.clientRevision, session: conn.id, headers: req.headers }) : undefined;
        if (trace && m.id !== undefined && m.id !== null) {
          traces.set(m, trace);
          conn.traced(m.id, trace);
        }
        const r = conn.owned.expect(m, { header, policy: snap.policy, ...(trace && { trace }) });
        countRevision(ctx.metrics, name, r.revision, r.source);
        if (r.pending) registered.push(r.pending);
        if (r.profile !== undefined && m === first) facts.profile = r.profile;
      } else if (!conn.owned.observe(m)) {
        withheld.add(m);
      }
    }
    // The body goes upstream as the client sent it, batch and all: one POST for one POST — less what may not
    // reach it (a cancellation of the pending initialize), which then goes as the rest of the batch.
    const all = read.body.messages as readonly ClassifiedMessage[];
    const rest = withheld.size === 0 ? undefined : all.flatMap((m, i) => (withheld.has(m) ? [] : [i]));
    if (rest?.length === 0) return void res.writeHead(202, { 'content-length': 0 }).end();
    // Traced, or less a message: each message as the client wrote it, each traced request written again with its
    // upstream context in `_meta` (its number literals kept); otherwise the bytes as they came.
    let text = read.text;
    if (rest !== undefined || traces.size > 0) {
      const texts = messageTexts(read.text, read.body);
      text = rest === undefined ? upstreamBodyText(all, texts, read.body.batch, traces) : upstreamBodyText(rest.map((i) => all[i]!), rest.map((i) => texts[i]!), read.body.batch, traces);
    }
    const outcome: SendOutcome = await conn.owned.send(text, registered, { headers: req.headers });
    if (outcome.answer) {
      const headers = { ...outcome.answer.headers };
      rewriteChallenge(req, snap.upstream as SseUpstreamConfig, outcome.answer.status, headers);
      return writeBody(res, outcome.answer.status, toClientHeaders(headers, { dropLength: true }), outcome.answer.body);
    }
    if (!outcome.ok) return refuse(outcome.error, !read.body.batch && first?.kind === 'request' ? (first.id ?? null) : null);
    res.writeHead(202, { 'content-length': 0 }).end();
  }

  gate.route(app, { method: 'POST', url: messagePath, guards: 'mcp', upstream: name, cors: true, handle: message });
  gate.route(app, { method: 'OPTIONS', url: messagePath, guards: 'discovery', upstream: name, cors: true, handle: preflightRoute(ctx, name, 'POST') });
  return {
    get,
    notifyAll(json) {
      for (const conn of connections.values()) conn.notify(json);
      return connections.size;
    },
    async closeAll() {
      await Promise.all([...connections.values()].map((c) => c.owned.close('RETROFIT_ERR_SHUTTING_DOWN', 'shutting down')));
    },
    counts() {
      let legacyPending = 0;
      for (const c of connections.values()) legacyPending += c.owned.state.pending.size;
      return { legacyConnections: connections.size, legacyPending };
    },
  };
}
