/**
 * A `url:` upstream and the clients of the other era. Every request is proxied (src/http/proxy/) unless the
 * upstream cannot serve the client's revision:
 *
 * 2026-07-28 clients. An upstream that speaks 2026-07-28 serves them itself: their requests are proxied like
 * any other. One that speaks only session revisions (its `server/discover` answers
 * anything but a DiscoverResult naming 2026-07-28: an old SDK's 400 "Server not initialized", a 404, -32601)
 * cannot: for it the gateway serves them as it does for `command` and `sse` upstreams (./modern.ts), on pooled
 * sessions it holds over Streamable HTTP (src/upstream/http-session-link.ts).
 *
 * A 2026-07-28 request is one by its MCP-Protocol-Version header or by a session-less revision in its `_meta`
 * (claimsModern): for an upstream of session revisions, a malformed one gets the revision's answer from the
 * gateway (./modern.ts), never the session-era error the upstream would give.
 *
 * Which one it is, the gateway asks once, on the first 2026-07-28 request, with a `server/discover` of its own
 * (the client's headers, so the upstream's auth applies) and keeps the answer until a reload or restart: a
 * result (a DiscoverResult) means it serves them; a refusal (an error answer, a 4xx) means it does not. An
 * answer that says nothing (unreachable, 401/403, 5xx) decides nothing: that request is proxied, and the next
 * asks again.
 *
 * Older clients (2024-11-05 … 2025-11-25). An upstream that serves only 2026-07-28 refuses their `initialize`
 * (400, -32022, `data.supported` naming session-less revisions only) and cannot hold their sessions: the
 * gateway holds them (./route.ts's edge, as for `command` upstreams) over links that speak 2026-07-28 to it
 * (src/upstream/modern-link.ts). Learnt from the first refusal (src/http/proxy/forward.ts hands that exchange
 * over: nothing extra is ever sent to an upstream that accepts `initialize`) and kept as above; later
 * initializes go to the gateway's edge at once. Requests naming a session the gateway holds go to that edge;
 * all others are proxied.
 */
import type { ServerResponse } from 'node:http';
import { DEFAULTS, type HttpUpstreamConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';
import { isJsonObject } from '../../json.js';
import { claimsModern, MODERN_REVISION, refusesSessions } from '../../protocol/modern.js';
import { decodedBody } from '../../upstream/exchange.js';
import { credentialKey, headerValue, mediaType, toUpstreamHeaders, type HeaderMap } from '../../upstream/headers.js';
import type { HttpLinkOptions } from '../../upstream/http-link.js';
import { HttpSessionLink } from '../../upstream/http-session-link.js';
import type { Logger } from '../../log.js';
import { ModernUpstreamLink } from '../../upstream/modern-link.js';
import { META_PROTOCOL_VERSION } from '../../protocol/era.js';
import type { HttpUpstream } from '../../upstream/http.js';
import { snapshot, type GatewayContext, type Snapshot } from '../context.js';
import { accepts } from '../server/accept.js';
import { parseBody, strictBodyProblem } from '../server/body.js';
import { finishExchange, labelOf } from '../server/exchange-log.js';
import type { GatewayRequest } from '../server/gate.js';
import { writeError } from '../write.js';
import { createModernFront, type ModernFacts, type ModernFront } from './modern.js';
import { createFront, type FrontHandlers } from './route.js';

/** `"io.modelcontextprotocol/protocolVersion"`, as a body that names a revision in its `_meta` holds it. */
const META_KEY = Buffer.from(JSON.stringify(META_PROTOCOL_VERSION));

/** The body may name a revision in its `_meta` (then it is parsed to know): one native search, no parse. */
function mayClaimModern(body: Buffer | undefined): boolean {
  return body !== undefined && body.includes(META_KEY);
}

/** Bytes of the probe's answer read. */
const PROBE_BYTES = 64 * 1024;

type Verdict = 'unknown' | 'native' | 'sessions';
/** Whether older clients' sessions are the gateway's (`held`: the upstream serves only 2026-07-28). */
type LegacyVerdict = 'unknown' | 'held';

export interface UrlModern {
  /** This request may be one the gateway serves itself (ask `serve`). */
  claims(req: GatewayRequest): boolean;
  /**
   * The upstream refused `req`, an initialize, with this body: when it serves only 2026-07-28, the gateway
   * holds the client's session from here on and answers `res` itself (true).
   */
  refusedInitialize(req: GatewayRequest, res: ServerResponse, body: Buffer): boolean;
  /** Serve it on pooled sessions, or hand it to `proxy` when the upstream serves it itself. */
  serve(req: GatewayRequest, res: ServerResponse, proxy: () => Promise<void> | void): Promise<void>;
  /** A notification of the gateway's own for listeners. */
  notifyAll(json: string): number;
  counts(): Record<string, number>;
  close(): Promise<void>;
}

/** The messages of a probe's answer: the JSON body, or the SSE stream's `data:` lines that are whole messages. */
function messagesOf(type: string | undefined, text: string): unknown[] {
  const messages: unknown[] = [];
  const parse = (s: string): void => {
    try {
      messages.push(JSON.parse(s));
    } catch {
      // not a message (or not a whole one yet)
    }
  };
  if (type === 'text/event-stream') for (const line of text.split('\n')) if (line.startsWith('data:')) parse(line.slice(5).trim());
  if (type === 'application/json') parse(text);
  return messages;
}

/** An SSE answer so far holds the probe's answer (a result or an error): the rest need not be read. */
function holdsAnswer(text: string): boolean {
  return messagesOf('text/event-stream', text).some((m) => isJsonObject(m) && ('result' in m || 'error' in m));
}

/** What a probe's answer says: the upstream speaks 2026-07-28, only session revisions, or nothing is known. */
function verdictOf(status: number, type: string | undefined, text: string): Verdict {
  if (status === 401 || status === 403 || status >= 500) return 'unknown';
  const messages = messagesOf(type, text);
  // A refusal (an error answer, a 4xx) says the upstream does not speak it; anything else it answered says
  // it does (whatever else it says, its answers are its own to give).
  if (status >= 400 || messages.some((m) => isJsonObject(m) && 'error' in m)) return 'sessions';
  return 'native';
}

export function createUrlModern(name: string, ctx: GatewayContext, http: HttpUpstream): UrlModern {
  let verdict: Verdict = 'unknown';
  let legacy: LegacyVerdict = 'unknown';
  let generation = ctx.generations.current;
  let probing: Promise<Verdict> | undefined;
  const upstreamOf = (req?: GatewayRequest): HttpUpstreamConfig => snapshot<HttpUpstreamConfig>(ctx, name, req).upstream;
  const log = ctx.logger.child({ upstream: name });
  /** How each request being served on pooled sessions would be proxied instead (see handOver). */
  const proxies = new WeakMap<GatewayRequest, () => Promise<void> | void>();
  const linkOptions = (snap: Snapshot, headers: HeaderMap, linkLog: Logger): HttpLinkOptions => {
    const upstream = snap.upstream as HttpUpstreamConfig;
    return {
      upstream: name,
      http,
      clientHeaders: headers,
      headers: upstream.headers,
      dropAuthorization: snap.loaded.config.auth !== undefined,
      timeoutMs: upstream.timeoutMs,
      maxEventBytes: snap.loaded.config.limits.maxResultBytes,
      log: linkLog,
    };
  };
  const front: ModernFront = createModernFront(
    {
      name,
      link: (snap, headers, linkLog) => new HttpSessionLink(linkOptions(snap, headers, linkLog)),
      stateless: (snap) => snap.upstream.stateless,
      credentials: (headers) => credentialKey(headers, snapshot(ctx, name).loaded.config.auth !== undefined),
      // The upstream now refuses sessions, serving 2026-07-28 itself (upgraded since it was asked): what was
      // learnt is asked again, and this request goes to it as its own client's would.
      handOver: (req, res) => {
        const proxy = proxies.get(req);
        if (verdict === 'sessions') log.info('the upstream refused a pooled session\'s initialize: it serves 2026-07-28 itself now, and its clients are proxied');
        verdict = 'unknown';
        if (!proxy || res.headersSent) return false;
        proxies.delete(req);
        void proxy();
        return true;
      },
    },
    ctx,
  );

  async function probe(req: GatewayRequest): Promise<Verdict> {
    const config = upstreamOf(req);
    const headers = toUpstreamHeaders(req.headers, { host: http.host, configured: config.headers, dropAuthorization: req.generation.config.auth !== undefined });
    for (const h of ['mcp-session-id', 'mcp-name', 'last-event-id']) delete headers[h];
    Object.assign(headers, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': 'server/discover' });
    const body = { jsonrpc: '2.0', id: 'mcp-retrofit-discover', method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_REVISION, 'io.modelcontextprotocol/clientCapabilities': {} } } };
    try {
      const res = await http.request({ method: 'POST', path: http.mapPath('', ''), headers, body: Buffer.from(JSON.stringify(body)), headersTimeoutMs: config.timeoutMs });
      const type = mediaType(headerValue(res.headers as HeaderMap, 'content-type'));
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = decodedBody(res.headers, res.body);
      // Every 2026-07-28 request waits for this verdict: the answer has timeoutMs to come, as any other, and an
      // event stream is read only until it holds the answer (an upstream may keep it open after).
      const timer = setTimeout(() => answer.destroy(new Error(`server/discover not answered within ${config.timeoutMs}ms`)), config.timeoutMs);
      try {
        for await (const chunk of answer as AsyncIterable<Buffer>) {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= PROBE_BYTES || (type === 'text/event-stream' && holdsAnswer(Buffer.concat(chunks).toString('utf8')))) {
            answer.destroy();
            break;
          }
        }
      } finally {
        clearTimeout(timer);
      }
      const found = verdictOf(res.statusCode, type, Buffer.concat(chunks).toString('utf8'));
      log.info({ status: res.statusCode, verdict: found }, found === 'native' ? 'the upstream serves 2026-07-28 itself: its clients are proxied' : found === 'sessions' ? 'the upstream speaks only session revisions: 2026-07-28 clients are served on pooled sessions' : 'the upstream\'s server/discover said nothing; asked again on the next 2026-07-28 request');
      return found;
    } catch (err) {
      log.warn({ err }, 'server/discover probe of the upstream failed; asked again on the next 2026-07-28 request');
      return 'unknown';
    }
  }

  // Older clients' sessions, when the gateway must hold them (an upstream that serves only 2026-07-28).
  const held: FrontHandlers = createFront(
    {
      name,
      path: upstreamOf().path,
      link: (snap, headers, linkLog) => new ModernUpstreamLink({ ...linkOptions(snap, headers, linkLog), reshape: (data, clientId) => ctx.rewriter.reshape(data, clientId, linkLog) }),
      maxSessions: () => DEFAULTS.maxSessionsSse,
      idleTimeoutMs: () => DEFAULTS.idleTimeoutMs,
      bridge: (snap) => snap.upstream.bridge,
      stateless: (snap) => snap.upstream.stateless,
    },
    ctx,
  );

  /** A reload may point the upstream elsewhere in spirit (headers, auth): what was learnt is asked again. */
  function current(): void {
    if (ctx.generations.current === generation) return;
    generation = ctx.generations.current;
    verdict = 'unknown';
    legacy = 'unknown';
  }

  async function verdictFor(req: GatewayRequest): Promise<Verdict> {
    current();
    if (verdict !== 'unknown') return verdict;
    probing ??= probe(req).finally(() => (probing = undefined));
    const found = await probing;
    if (verdict === 'unknown') verdict = found;
    return found;
  }

  return {
    claims(req) {
      const session = headerValue(req.headers, 'mcp-session-id');
      // On every proxied request: what settles it cheaply first, the config snapshot only when it may matter.
      const modern = headerValue(req.headers, 'mcp-protocol-version') === MODERN_REVISION;
      // A 2026-07-28 request is never matched to a session, whatever Mcp-Session-Id it carries.
      if (session !== undefined && !modern) return held.sessions.get(session) !== undefined;
      if (req.method !== 'POST') return false;
      if (modern && verdict === 'native') return false;
      current();
      // A body whose _meta names a session-less revision under another header (or none) is a 2026-07-28 client's
      // too: the gateway answers it as the revision does, unless the upstream speaks the revision itself.
      const metaModern = !modern && verdict !== 'native' && mayClaimModern(req.body);
      // Otherwise an older client's initialize, once the upstream showed it serves only 2026-07-28.
      if (!modern && !metaModern && legacy !== 'held') return false;
      const upstream = upstreamOf(req);
      return upstream.bridge && (!(modern || metaModern) || upstream.stateless.serve);
    },
    refusedInitialize(req, res, body) {
      const upstream = upstreamOf(req);
      if (!upstream.bridge) return false;
      let refusal: unknown;
      try {
        refusal = JSON.parse(body.toString('utf8'));
      } catch {
        return false;
      }
      const error = isJsonObject(refusal) && isJsonObject(refusal.error) ? refusal.error : undefined;
      const supported = isJsonObject(error?.data) && Array.isArray(error.data.supported) ? error.data.supported : undefined;
      if (!refusesSessions(error)) return false;
      current();
      if (legacy !== 'held') log.info({ supported }, 'the upstream serves only 2026-07-28: older clients get sessions the gateway holds');
      legacy = 'held';
      void held.post(req, res);
      return true;
    },
    async serve(req, res, proxy) {
      const header = headerValue(req.headers, 'mcp-protocol-version');
      if (headerValue(req.headers, 'mcp-session-id') !== undefined && header !== MODERN_REVISION) {
        const handle = req.method === 'POST' ? held.post : req.method === 'GET' ? held.get : held.remove;
        return handle(req, res);
      }
      const read = parseBody(req.headers, req.body);
      if (header !== MODERN_REVISION) {
        const messages = read instanceof RetrofitError ? [] : read.body.messages;
        if (messages.some((m) => m.kind === 'request' && m.method === 'initialize')) return legacy === 'held' ? held.post(req, res) : proxy();
        if (!messages.some((m) => claimsModern(header, m.metaRevision))) return proxy();
      }
      if ((await verdictFor(req)) !== 'sessions') return proxy();
      const facts: ModernFacts & { method: string; tool?: string } = { method: 'POST' };
      const started = performance.now();
      const refused: { error?: RetrofitError } = {};
      proxies.set(req, proxy);
      res.once('close', () => {
        // Handed over to the proxy (see handOver): its exchange has its own log line.
        if (!proxies.has(req)) return;
        proxies.delete(req);
        finishExchange(ctx.logger, ctx.metrics, { reqId: req.id, upstream: name, started, ...facts, rpcError: refused.error?.rpcCode ?? facts.rpcError, errorCode: refused.error?.code ?? facts.errorCode, status: res.headersSent ? res.statusCode : 0, aborted: !res.writableFinished });
      });
      const refuse = (error: RetrofitError): void => {
        refused.error = error;
        writeError(res, error);
      };
      if (!accepts(req.headers.accept, 'application/json', 'text/event-stream')) return refuse(new RetrofitError('RETROFIT_ERR_NOT_ACCEPTABLE', ['both application/json and text/event-stream']));
      if (read instanceof RetrofitError) return refuse(read);
      facts.method = labelOf(read.body, 'POST');
      const first = read.body.messages[0];
      if (!read.body.batch && first?.method === 'tools/call' && first.name !== undefined) facts.tool = first.name;
      const problem = strictBodyProblem(read);
      if (problem) return refuse(problem);
      // The upstream does not speak the revision: what is wrong with the request (a header that disagrees with
      // _meta, a missing envelope, a newer revision) is answered as the revision answers it (./modern.ts), not
      // with the session-era error the upstream would give.
      return front.post(req, res, read, facts);
    },
    notifyAll: (json) => front.notifyAll(json) + held.sessions.notifyAll(json),
    counts: () => {
      const sessions = held.sessions.counts();
      return { ...front.counts(), heldSessions: sessions.sessions, heldPending: sessions.pending, heldClosing: sessions.closing };
    },
    close: async () => {
      await Promise.all([front.close(), held.sessions.closeAll('shutting down')]);
    },
  };
}
