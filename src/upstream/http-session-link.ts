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
 * An SSE answer that ends (cleanly or broken) after an event id and before the answers it owes is resumed with
 * a GET carrying `Last-Event-ID`, as the SDK clients resume theirs (./resumption.ts): what comes on it is handed
 * on as if it came on the POST's stream.
 *
 * Bounds: a JSON body or SSE event over maxEventBytes is dropped as it arrives and reported with the id read
 * from its ends; one nested deeper than MAX_DEPTH too. While the session is paused, no answer body is read.
 * A 404 on a send means the upstream ended the session: the link closes, and the pool starts another.
 */
import type { Readable } from 'node:stream';
import { RetrofitError } from '../errors.js';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';
import { FIRST_HEADER_REVISION, isRevision } from '../protocol/era.js';
import { httpAnswer, readJsonAnswer, readSseAnswer, type AnswerReaderOptions } from './answer-reader.js';
import { decodedBody } from './exchange.js';
import { failureError, failureKind } from './errors.js';
import { headerValue, mediaType, type HeaderMap } from './headers.js';
import { HttpLink, requestIds } from './http-link.js';
import type { SendOptions, SendOutcome } from './link.js';
import { MAX_FRUITLESS, StreamPosition, waitToResume } from './resumption.js';

/** How long the DELETE that ends the session may take. */
const DELETE_TIMEOUT_MS = 2_000;

export class HttpSessionLink extends HttpLink {
  #session: string | undefined;
  #revision: string | undefined;

  #headers(client: HeaderMap): Record<string, string | string[]> {
    const out = this.headersFrom(client);
    if (this.#session !== undefined) out['mcp-session-id'] = this.#session;
    if (this.#revision !== undefined && this.#revision >= FIRST_HEADER_REVISION) out['mcp-protocol-version'] = this.#revision;
    return out;
  }

  async send(json: string, options: SendOptions = {}): Promise<SendOutcome> {
    if (!this.alive) return { ok: false, error: this.error() };
    const o = this.o;
    // The request's own deadline bounds the resumptions of its answer stream too.
    const deadline = Date.now() + o.timeoutMs;
    let res;
    try {
      res = await o.http.request({ method: 'POST', path: o.http.mapPath('', ''), headers: this.#headers(options.headers ?? o.clientHeaders), body: Buffer.from(json), signal: this.abort.signal, headersTimeoutMs: o.timeoutMs });
    } catch (err) {
      const kind = this.abort.signal.aborted ? 'aborted' : failureKind(err);
      return { ok: false, error: failureError(err, kind === 'aborted' ? 'unreachable' : kind, o.upstream, o.timeoutMs)! };
    }
    const session = headerValue(res.headers as HeaderMap, 'mcp-session-id');
    if (session !== undefined) this.#session ??= session;
    const type = mediaType(headerValue(res.headers as HeaderMap, 'content-type'));
    if (res.statusCode === 404 && this.#session !== undefined) {
      await res.body.dump().catch(() => {});
      // The link ends once this send's outcome is settled: the request it carried is then released as never
      // sent (`gone`: its caller may send it again on a new session), not failed with the link's end.
      setImmediate(() => this.end({ kind: 'unreachable', reason: 'the upstream ended the session (404)' }));
      return { ok: false, error: this.error(), gone: true };
    }
    // Refused by the upstream itself (credentials): the answer, challenge and all, is what the client should see.
    if (res.statusCode === 401 || res.statusCode === 403) {
      return { ok: false, answer: await httpAnswer(res), error: new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [o.upstream], { cause: new Error(`HTTP ${res.statusCode}`) }) };
    }
    if (type === 'text/event-stream' && res.statusCode === 200) {
      void this.#answerStream(decodedBody(res.headers, res.body), new StreamPosition(options.ids ?? requestIds(json)), options.headers, deadline);
      return { ok: true };
    }
    if (type === 'application/json') {
      let answered = false;
      const reader = this.frames((data) => {
        // An error answer with the request's id is the answer; one without (a refused message) is the send's failure.
        answered = res.statusCode < 300 || sniffResponseId(endsOf(data)) !== undefined;
        this.frame(data);
      });
      const whole = await this.read(decodedBody(res.headers, res.body), readJsonAnswer, reader, 'warn');
      if (!whole) {
        this.brokeFor(json, options.ids);
        return { ok: true };
      }
      // The body was the answer: a request it did not answer (it was no JSON-RPC, or another id) never will be.
      if (res.statusCode < 300) this.brokeFor(json, options.ids, 'unanswered');
      if (answered || res.statusCode < 300) return { ok: true };
    } else {
      await res.body.dump().catch(() => {});
      if (res.statusCode < 300) {
        // No message came: all a notification or a response is owed (202); a request it carried will never be
        // answered, and is answered now rather than at its deadline.
        if ((options.ids ?? requestIds(json)).length === 0) return { ok: true };
        o.log.warn({ status: res.statusCode }, 'the upstream answered a request with no message');
        return { ok: false, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [o.upstream], { cause: new Error(`HTTP ${res.statusCode} to a request`) }) };
      }
    }
    return { ok: false, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [o.upstream], { cause: new Error(`HTTP ${res.statusCode}`) }) };
  }

  /**
   * A POST's SSE answer, each message handed on as it comes; resumed while it ends owing answers after an event
   * id (./resumption.ts). What it still owes when it broke, or when resuming it failed, is reported as reset.
   */
  async #answerStream(body: Readable, stream: StreamPosition, client: HeaderMap | undefined, deadline: number): Promise<void> {
    let whole = await this.read(body, readSseAnswer, this.#tracking(stream), 'warn');
    let fruitless = 0;
    while (stream.resumable && this.alive && fruitless < MAX_FRUITLESS) {
      const from = stream.lastEventId!;
      if (Date.now() + stream.retryMs >= deadline || !(await waitToResume(stream.retryMs, this.abort.signal))) break;
      const resumed = await this.#resume(from, stream, client, deadline);
      if (resumed === undefined) break;
      whole = resumed;
      fruitless = stream.lastEventId === from ? fruitless + 1 : 0;
    }
    // The ids are known: no JSON is read back.
    if (this.alive && stream.owed.size > 0 && (!whole || stream.lastEventId !== undefined)) this.brokeFor('', [...stream.owed]);
  }

  /**
   * One resumption: a GET with `Last-Event-ID: from`, its stream read as the POST's was, until what the stream
   * owed came or `deadline`. Undefined when the upstream refused it (not a stream: nothing to retry); false
   * when the connection failed or broke.
   */
  async #resume(from: string, stream: StreamPosition, client: HeaderMap | undefined, deadline: number): Promise<boolean | undefined> {
    const o = this.o;
    const headers = this.#headers(client ?? o.clientHeaders);
    delete headers['content-type'];
    headers.accept = 'text/event-stream';
    headers['last-event-id'] = from;
    let res;
    try {
      res = await o.http.request({ method: 'GET', path: o.http.mapPath('', ''), headers, signal: this.abort.signal, headersTimeoutMs: Math.max(1, deadline - Date.now()) });
    } catch (err) {
      o.log.debug({ err, lastEventId: from }, 'resuming an answer stream of the upstream failed');
      return false;
    }
    if (res.statusCode !== 200 || mediaType(headerValue(res.headers as HeaderMap, 'content-type')) !== 'text/event-stream') {
      await res.body.dump().catch(() => {});
      o.log.warn({ status: res.statusCode, lastEventId: from }, 'the upstream refused to resume an answer stream');
      return undefined;
    }
    const body = decodedBody(res.headers, res.body);
    // The upstream keeps a resumed stream open after its replay: it is read until it owes nothing, or the deadline.
    const late = setTimeout(() => body.destroy(), Math.max(0, deadline - Date.now()));
    const done = () => {
      if (stream.owed.size === 0) body.destroy();
    };
    try {
      return (await this.read(body, readSseAnswer, this.#tracking(stream, done), 'debug')) || stream.owed.size === 0;
    } finally {
      clearTimeout(late);
    }
  }

  /** How an answer stream is read: each message framed, the stream's position and what it owes kept up to date. */
  #tracking(stream: StreamPosition, after: () => void = () => {}): AnswerReaderOptions {
    const reader = this.frames((data) => {
      stream.carried(data);
      this.frame(data);
      after();
    });
    return {
      ...reader,
      position: stream.position,
      dropped: (dropped) => {
        stream.settle(dropped.id);
        reader.dropped(dropped);
        after();
      },
    };
  }

  /** The initialize answer names the revision the session speaks (the header of every later request). */
  protected override observe(data: string): void {
    if (this.#revision !== undefined || !data.includes('"protocolVersion"')) return;
    try {
      const message = JSON.parse(data) as { result?: { protocolVersion?: unknown } };
      const revision = message.result?.protocolVersion;
      if (isRevision(revision)) this.#revision = revision;
    } catch {
      // not JSON: the session core says so
    }
  }

  /** End the session at the upstream (DELETE, best effort) and stop reading. */
  async close(): Promise<void> {
    if (!this.alive) return;
    const session = this.#session;
    this.stopReading();
    this.end({ kind: 'requested', reason: 'session closed' });
    if (session === undefined) return;
    try {
      const res = await this.o.http.request({ method: 'DELETE', path: this.o.http.mapPath('', ''), headers: this.#headers(this.o.clientHeaders), headersTimeoutMs: DELETE_TIMEOUT_MS });
      await res.body.dump();
    } catch {
      // The upstream expires it by itself.
    }
  }
}
