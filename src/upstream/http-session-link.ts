/**
 * A link over a session of a Streamable HTTP upstream (2025-03-26 … 2025-11-25) that the gateway holds
 * itself: the pooled sessions that serve 2026-07-28 clients of a `url:` upstream speaking only session
 * revisions (src/session/pool.ts). Each message is a POST on the upstream's URL with the session's
 * `Mcp-Session-Id` (from the initialize answer) and `MCP-Protocol-Version` (the revision it answered, from
 * 2025-06-18 on); its answer — 202, a JSON body, or an SSE stream that may carry the upstream's requests and
 * notifications before the response — becomes frames in arrival order. The upstream's headers are the
 * client's of each send, filtered as the proxy filters them, less the 2026-07-28 request headers of the client
 * (Mcp-Method, Mcp-Name) and its session headers, which name other sessions than this one.
 *
 * Bounds: a JSON body or SSE event over maxEventBytes is dropped as it arrives and reported with the id read
 * from its ends; one nested deeper than MAX_DEPTH too. While the session is paused, no answer body is read.
 * A 404 on a send means the upstream ended the session: the link closes, and the pool starts another.
 */
import type { Readable } from 'node:stream';
import { RetrofitError } from '../errors.js';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';
import type { Logger } from '../log.js';
import { FIRST_HEADER_REVISION, isRevision } from '../protocol/era.js';
import { readJsonAnswer, readSseAnswer, type AnswerReaderOptions } from './answer-reader.js';
import { failureError, failureKind } from './errors.js';
import { headerValue, mediaType, toUpstreamHeaders, type HeaderMap } from './headers.js';
import type { HttpUpstream } from './http.js';
import { ReadGate } from './gate.js';
import type { LinkClosed, LinkDropped, LinkFrame, SendOptions, SendOutcome, UpstreamLink } from './link.js';

/** Client headers that belong to the client's own exchange, never to the gateway's session. */
const NOT_FORWARDED = ['mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'last-event-id', 'accept', 'content-type'];
/** How long the DELETE that ends the session may take. */
const DELETE_TIMEOUT_MS = 2_000;

/** What a link that speaks Streamable HTTP to a `url:` upstream itself needs (this one, ./modern-link.ts). */
export interface HttpLinkOptions {
  readonly upstream: string;
  readonly http: HttpUpstream;
  /** The headers of the client request that opened the session (forwarded, filtered). */
  readonly clientHeaders: HeaderMap;
  /** The upstream's configured headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** Drop the client's Authorization (it carried the gateway's own token). */
  readonly dropAuthorization: boolean;
  readonly timeoutMs: number;
  /** limits.maxResultBytes. */
  readonly maxEventBytes: number;
  readonly log: Logger;
}

export class HttpSessionLink implements UpstreamLink {
  onframe: (frame: LinkFrame) => void = () => {};
  ondropped: (dropped: LinkDropped) => void = () => {};
  onclose: (closed: LinkClosed) => void = () => {};
  readonly #o: HttpLinkOptions;
  readonly #abort = new AbortController();
  readonly #bodies = new Set<Readable>();
  #session: string | undefined;
  #revision: string | undefined;
  readonly #paused = new ReadGate();
  #closed: LinkClosed | undefined;

  constructor(options: HttpLinkOptions) {
    this.#o = options;
  }

  get alive(): boolean {
    return this.#closed === undefined;
  }

  #headers(client: HeaderMap): Record<string, string | string[]> {
    const out = toUpstreamHeaders(client, { host: this.#o.http.host, configured: this.#o.headers, dropAuthorization: this.#o.dropAuthorization });
    for (const name of NOT_FORWARDED) delete out[name];
    out['content-type'] = 'application/json';
    out.accept = 'application/json, text/event-stream';
    if (this.#session !== undefined) out['mcp-session-id'] = this.#session;
    if (this.#revision !== undefined && this.#revision >= FIRST_HEADER_REVISION) out['mcp-protocol-version'] = this.#revision;
    return out;
  }

  async send(json: string, options: SendOptions = {}): Promise<SendOutcome> {
    if (this.#closed) return { ok: false, error: this.#error() };
    const o = this.#o;
    let res;
    try {
      res = await o.http.request({ method: 'POST', path: o.http.mapPath('', ''), headers: this.#headers(options.headers ?? o.clientHeaders), body: Buffer.from(json), signal: this.#abort.signal, headersTimeoutMs: o.timeoutMs });
    } catch (err) {
      const kind = this.#abort.signal.aborted ? 'aborted' : failureKind(err);
      return { ok: false, error: failureError(err, kind === 'aborted' ? 'unreachable' : kind, o.upstream, o.timeoutMs)! };
    }
    const session = headerValue(res.headers as HeaderMap, 'mcp-session-id');
    if (session !== undefined) this.#session ??= session;
    const type = mediaType(headerValue(res.headers as HeaderMap, 'content-type'));
    if (res.statusCode === 404 && this.#session !== undefined) {
      await res.body.dump().catch(() => {});
      this.#end({ kind: 'unreachable', reason: 'the upstream ended the session (404)' });
      return { ok: false, error: this.#error() };
    }
    if (type === 'text/event-stream' && res.statusCode === 200) {
      void this.#readStream(res.body);
      return { ok: true };
    }
    if (type === 'application/json') {
      let answered = false;
      await readJsonAnswer(res.body, { ...this.#reader(), message: (data) => {
        // An error answer with the request's id is the answer; one without (a refused message) is the send's failure.
        answered = res.statusCode < 300 || sniffResponseId(endsOf(data)) !== undefined;
        this.#frame(data);
      } }).catch(() => {});
      if (answered || res.statusCode < 300) return { ok: true };
    } else {
      await res.body.dump().catch(() => {});
      if (res.statusCode < 300) return { ok: true };
    }
    return { ok: false, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [o.upstream], { cause: new Error(`HTTP ${res.statusCode}`) }) };
  }

  #reader(): AnswerReaderOptions {
    return { maxBytes: this.#o.maxEventBytes, message: (data) => this.#frame(data), dropped: (d) => this.#dropped(d), paused: () => this.#paused.wait };
  }

  async #readStream(body: Readable): Promise<void> {
    this.#bodies.add(body);
    try {
      await readSseAnswer(body, this.#reader());
    } catch (err) {
      // The answer stream broke: whatever it still owed is answered by the session's deadline or the link's end.
      if (!this.#abort.signal.aborted) this.#o.log.warn({ err }, 'an answer stream of the upstream session failed');
    } finally {
      this.#bodies.delete(body);
    }
  }

  #frame(data: string): void {
    try {
      if (this.#revision === undefined && data.includes('"protocolVersion"')) this.#learnRevision(data);
      this.onframe({ data });
    } catch (err) {
      this.#o.log.error({ err, bytes: data.length }, 'upstream message could not be handled; dropped');
      const id = sniffResponseId(endsOf(data));
      this.#dropped({ reason: 'failed', bytes: data.length, ...(id !== undefined && { id }) });
    }
  }

  /** The initialize answer names the revision the session speaks (the header of every later request). */
  #learnRevision(data: string): void {
    try {
      const message = JSON.parse(data) as { result?: { protocolVersion?: unknown } };
      const revision = message.result?.protocolVersion;
      if (isRevision(revision)) this.#revision = revision;
    } catch {
      // not JSON: the session core says so
    }
  }

  #dropped(dropped: LinkDropped): void {
    try {
      this.ondropped(dropped);
    } catch (err) {
      this.#o.log.error({ err, reason: dropped.reason }, 'a dropped upstream message could not be reported');
    }
  }

  #error(): RetrofitError {
    return new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [this.#o.upstream], this.#closed?.error ? { cause: this.#closed.error } : undefined);
  }

  pause(): void {
    this.#paused.close();
  }

  resume(): void {
    this.#paused.open();
  }

  /** End the session at the upstream (DELETE, best effort) and stop reading. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const session = this.#session;
    this.#abort.abort();
    this.resume();
    for (const body of this.#bodies) body.destroy();
    this.#end({ kind: 'requested', reason: 'session closed' });
    if (session === undefined) return;
    try {
      const res = await this.#o.http.request({ method: 'DELETE', path: this.#o.http.mapPath('', ''), headers: this.#headers(this.#o.clientHeaders), headersTimeoutMs: DELETE_TIMEOUT_MS });
      await res.body.dump();
    } catch {
      // The upstream expires it by itself.
    }
  }

  #end(closed: LinkClosed): void {
    if (this.#closed) return;
    this.#closed = closed;
    try {
      this.onclose(closed);
    } catch (err) {
      this.#o.log.error({ err }, 'the end of an upstream session could not be handled');
    }
  }
}
