/**
 * The SSE relay of a proxied answer, block by block. At the start of each block it decides whether it may have
 * to change it: only an answer to a request the session awaits can change (src/session/inbound.ts), so while
 * the session awaits nothing, a block's bytes are forwarded as they arrive, whatever its size. Otherwise the
 * block is held — but its first bytes usually tell a notification or a request (a `method` up front) or an
 * answer to an id nobody awaits, which are then forwarded as they arrive too. A held block is bounded by
 * limits.maxResultBytes and never truncated: past it, the request it answers gets RETROFIT_ERR_RESULT_TOO_LARGE as
 * an event of its own (#overflow says which). Every write respects the client's backpressure; the gateway's own
 * events go between blocks only. The relay ends the response: cleanly when the stream completed (or what the
 * exchange still owed was answered), cut off otherwise. An upstream that resets the stream after the client saw an
 * event id leaves the answer to the client's resumption: the stream ends cleanly, the requests stay awaited.
 * What a held block becomes once complete is ./sse-transform.ts.
 */
import type { ServerResponse } from 'node:http';
import { RetrofitError } from '../../errors.js';
import { errorAnswer, responseIdLiteral } from '../../jsonrpc/id-literal.js';
import { sniffHead, sniffResponseId } from '../../jsonrpc/sniff.js';
import { BlockScanner, endsBlock } from '../../stream/blocks.js';
import { EventIdWatch } from '../../stream/event-ids.js';
import type { HeldBytes } from '../../stream/held.js';
import { dataHead, dataTail } from '../../stream/sse.js';
import { messageEvent, type EventBytes } from '../../stream/sse-encode.js';
import { drained } from '../write.js';
import { holder, mayChange, type RelayBody, type RelayContext } from './relay.js';
import { transform } from './sse-transform.js';

/** How an SSE relay ended. */
export type RelayEnd =
  | { readonly kind: 'complete' }
  /** The client went away. */
  | { readonly kind: 'gone' }
  /**
   * The upstream failed mid-stream; `answered`: what this exchange still owed was answered with error events
   * (false when a block was cut short, or the client is gone: then only ending the connection is honest).
   */
  | { readonly kind: 'failed'; readonly error: unknown; readonly answered: boolean }
  /**
   * The upstream reset the stream after the client saw an event id: the client resumes it (GET with
   * Last-Event-ID, as it would from the upstream itself), and the answer replayed there is rewritten, since
   * this exchange's requests stay awaited. An error event in its place would be taken as the final answer.
   */
  | { readonly kind: 'resumable'; readonly error: unknown };

const COMPLETE: RelayEnd = Object.freeze({ kind: 'complete' });
const GONE: RelayEnd = Object.freeze({ kind: 'gone' });

/** Bytes of a held block's head worth sniffing for what it is (the sniffer reads 512 of its data). */
const HEAD_BYTES = 2048;
/** Bytes of each end of a dropped block kept to find the id it answers. */
const ENDS = 1024;
const EMPTY = Buffer.alloc(0);
const CR = 0x0d;

function lastByte(bytes: EventBytes): number | undefined {
  const last = Buffer.isBuffer(bytes) ? bytes : bytes[bytes.length - 1];
  return last?.[last.length - 1];
}

/** One SSE relay: the state of the block under way, and where its bytes go. */
class SseRelay {
  readonly #res: ServerResponse;
  readonly #ctx: RelayContext;
  readonly #scanner = new BlockScanner();
  /** `start`: between blocks; `pass`: the block under way is forwarded as it comes; `hold`: kept; `drop`: over the bound. */
  #mode: 'start' | 'pass' | 'hold' | 'drop' = 'start';
  /** The held block's head was read and told nothing: it stays held. */
  #sniffed = false;
  /** The held block; a large one in shared memory (see HeldBytes), so its worker takes it without a copy. */
  readonly #held: HeldBytes;
  #dropHead: Buffer = EMPTY;
  #dropTail: Buffer = EMPTY;
  #dropBytes = 0;
  /** Bytes to write, in order. */
  #out: Buffer[] = [];
  /**
   * The last block went out as its own bytes: when it ended at a CR whose LF comes in a later chunk, that LF
   * goes after it. A block that was rewritten (or dropped) went out as the gateway's frame, which has its own
   * blank line: the LF of the original's is dropped with the rest of it.
   */
  #ownBytes = true;
  /** Nothing more is to be relayed (the answers this exchange owed were given): the stream ends. */
  #stopped = false;
  /** Whether the client got an event id it can resume the stream from (watched only when its revision resumes). */
  readonly #ids: EventIdWatch | undefined;

  constructor(res: ServerResponse, ctx: RelayContext) {
    this.#res = res;
    this.#ctx = ctx;
    this.#held = holder(ctx);
    this.#ids = ctx.resumes === true ? new EventIdWatch() : undefined;
  }

  /** The relay ended the stream itself (see #overflow). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The client got an event id, and its revision has resumption: it may resume the stream from there. */
  get resumable(): boolean {
    return this.#ids?.seen === true;
  }

  /** Part of a block went out: nothing of the gateway's own can be written until it ends. */
  get mid(): boolean {
    return this.#mode === 'pass';
  }

  /** Relay one chunk: false (or a promise of it) once the client is gone. Synchronous unless something waits. */
  chunk(chunk: Buffer): boolean | Promise<boolean> {
    // The usual chunk: whole blocks, none of which can change. It goes as it came, unscanned.
    if (this.#mode === 'start' && this.#scanner.atRest() && endsBlock(chunk) && this.#unchangeable(chunk)) {
      this.#out.push(chunk);
      return this.#flush();
    }
    let i = 0;
    while (i < chunk.length) {
      if (this.#mode === 'start') {
        const stray = this.#scanner.strayLf(chunk, i);
        if (stray > 0) {
          if (this.#ownBytes) this.#out.push(chunk.subarray(i, i + stray));
          i += stray;
          continue;
        }
        this.#mode = this.#awaitsAnswers() ? 'hold' : 'pass';
        this.#sniffed = false;
      }
      const end = this.#scanner.end(chunk, i);
      const stop = end === -1 ? chunk.length : end;
      const piece = i === 0 && stop === chunk.length ? chunk : chunk.subarray(i, stop);
      i = stop;
      if (this.#mode === 'pass') this.#out.push(piece);
      else if (this.#mode === 'hold') this.#hold(piece, end === -1);
      else this.#drop(piece);
      if (this.#stopped) break;
      if (end === -1) break;
      const later = this.#blockEnded();
      if (later) return this.#after(later, i < chunk.length ? chunk.subarray(i) : undefined);
    }
    return this.#flush();
  }

  /** A worker rewrites a block: what came before goes out first, what comes after waits for it. */
  async #after(later: Promise<EventBytes>, rest: Buffer | undefined): Promise<boolean> {
    if (!(await this.#flush())) return false;
    this.#push(await later);
    return rest === undefined ? this.#flush() : this.chunk(rest);
  }

  /** End of the upstream's stream: a block cut short is forwarded as it came (clients never dispatch it). */
  end(): boolean | Promise<boolean> {
    if (this.#mode === 'hold') this.#out.push(...this.#held.takePieces());
    this.#held.clear();
    this.#mode = 'start';
    return this.#flush();
  }

  /**
   * The upstream failed: each request of this exchange still awaited gets `error` as an event of its own, when
   * no block is under way (one cut short cannot take an event after it). False when none could be written.
   */
  async fail(error: RetrofitError): Promise<boolean> {
    if (this.mid) return false;
    this.#held.clear();
    this.#mode = 'start';
    const state = this.#ctx.state;
    for (const p of this.#ctx.own) {
      if (!state?.pending.holds(p)) continue;
      state.pending.forget(p);
      this.#out.push(messageEvent(errorAnswer(error, p.id, p.idLiteral)));
    }
    return this.#flush();
  }

  /** The upstream broke after the client got an event id: the answers this exchange owes come on its resumption. */
  leftToResume(error: unknown): RelayEnd {
    this.#ctx.log.debug({ ids: this.#ctx.own.map((p) => p.id) }, 'upstream stream broke after an event id; left to the client to resume');
    return { kind: 'resumable', error };
  }

  /** Nothing in `chunk` can change: the session awaits nothing, or only answers it would not change for this chunk. */
  #unchangeable(chunk: Buffer): boolean {
    const state = this.#ctx.state;
    return state === undefined || state.pending.empty || (chunk.length <= this.#ctx.max && !mayChange(state, chunk));
  }

  #awaitsAnswers(): boolean {
    const state = this.#ctx.state;
    return state !== undefined && !state.pending.empty;
  }

  #hold(piece: Buffer, more: boolean): void {
    this.#held.push(piece);
    const over = this.#held.length > this.#ctx.max;
    // A block that goes on may show what it is by its head; a whole one is judged whole, unless it is too large.
    if (over || (more && !this.#sniffed)) this.#sniff();
    if (this.#mode === 'hold' && over) this.#overflow();
  }

  /** A held block's first bytes may show it cannot change: then it is forwarded from here on as it comes. */
  #sniff(): void {
    const found = sniffHead(dataHead(this.#held.head(HEAD_BYTES)));
    const passes = found?.kind === 'method' || (found?.kind === 'id' && this.#ctx.state?.pending.peek(found.id) === undefined);
    if (passes) {
      this.#out.push(...this.#held.takePieces());
      this.#mode = 'pass';
      return;
    }
    // Once the head is all here, it will not say more.
    if (this.#held.length >= HEAD_BYTES) this.#sniffed = true;
  }

  /**
   * Past the bound: the block cannot be held. When its head names the request it answers, that request gets
   * RESULT_TOO_LARGE now and the rest of the block goes by unread. When it does not, and this exchange still
   * owes answers, the block is theirs: each gets RESULT_TOO_LARGE and the stream ends (a POST's stream carries
   * nothing after its answers). Otherwise only both ends of the block are kept, for the id read at its end.
   */
  #overflow(): void {
    const held = this.#held;
    const bytes = held.length;
    this.#mode = 'drop';
    this.#dropBytes = 0;
    this.#dropTail = EMPTY;
    const head = dataHead(held.head(HEAD_BYTES));
    const found = sniffHead(head);
    const state = this.#ctx.state;
    if (found?.kind === 'id') {
      held.clear();
      this.#tooLargeFor(found.id, bytes, responseIdLiteral(found.id, head));
      this.#dropHead = EMPTY;
      // It was the last answer this exchange owed: the rest of the block is not waited for.
      if (this.#ctx.own.length > 0 && !this.#ctx.own.some((p) => state?.pending.holds(p))) this.#stopped = true;
      return;
    }
    const owed = this.#ctx.own.filter((p) => state?.pending.holds(p));
    if (owed.length > 0) {
      held.clear();
      for (const p of owed) this.#tooLargeFor(p.id, bytes, p.idLiteral);
      this.#ctx.log.warn({ limit: this.#ctx.max, ids: owed.map((p) => p.id) }, 'upstream SSE event over maxResultBytes; stream ended');
      this.#stopped = true;
      return;
    }
    this.#dropHead = Buffer.from(held.head(ENDS * 4));
    this.#dropBytes = bytes;
    this.#dropTail = Buffer.from(held.tail(ENDS));
    held.clear();
  }

  #drop(piece: Buffer): void {
    this.#dropBytes += piece.length;
    const joined = piece.length >= ENDS ? piece : Buffer.concat([this.#dropTail, piece]);
    this.#dropTail = Buffer.from(joined.subarray(Math.max(0, joined.length - ENDS)));
  }

  /** The block under way ended: its bytes (or what replaces them) join the output, or a worker's promise of them. */
  #blockEnded(): Promise<EventBytes> | undefined {
    const mode = this.#mode;
    this.#mode = 'start';
    // The gateway's own event held back while a block was under way goes between this block and the next.
    const queued = this.#ctx.stream?.takeQueued();
    if (queued) this.#out.push(queued);
    this.#ownBytes = mode === 'pass';
    if (mode === 'pass') return undefined;
    if (mode === 'drop') {
      this.#tooLarge();
      return undefined;
    }
    const out = transform(this.#held.take(), this.#ctx);
    if (out instanceof Promise) return out;
    this.#push(out);
    return undefined;
  }

  /** A held block's bytes, or what replaces them. */
  #push(bytes: EventBytes): void {
    // Its own bytes (it did not change) end as it ended, at its CR; the gateway's frames never end with one.
    this.#ownBytes = lastByte(bytes) === CR;
    if (Buffer.isBuffer(bytes)) this.#out.push(bytes);
    else this.#out.push(...bytes);
  }

  /** A dropped block whose id was not known when it overflowed: the request it answers (if any) gets RESULT_TOO_LARGE. */
  #tooLarge(): void {
    if (this.#dropHead.length === 0) return;
    const id = sniffResponseId({ head: dataHead(this.#dropHead), tail: dataTail(this.#dropTail) });
    this.#dropHead = EMPTY;
    this.#dropTail = EMPTY;
    if (id === undefined) {
      this.#ctx.log.warn({ bytes: this.#dropBytes, limit: this.#ctx.max }, 'upstream SSE event over maxResultBytes dropped; it answers no request');
      return;
    }
    this.#tooLargeFor(id, this.#dropBytes);
  }

  /** Request `id` (written as `literal`, when known) gets RESULT_TOO_LARGE in place of its answer. */
  #tooLargeFor(id: string | number, bytes: number, literal?: string): void {
    const ctx = this.#ctx;
    ctx.log.warn({ bytes, limit: ctx.max, id }, 'upstream SSE event over maxResultBytes dropped');
    const pending = ctx.state?.pending.peek(id, literal);
    if (pending) ctx.state!.pending.forget(pending);
    const error = new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [ctx.upstream, ctx.max]);
    this.#out.push(messageEvent(errorAnswer(error, id, pending?.idLiteral ?? literal)));
  }

  /** Write the output so far, waiting while the client cannot take it; false once it is gone. */
  #flush(): boolean | Promise<boolean> {
    const stream = this.#ctx.stream;
    if (stream) stream.mid = this.mid;
    const out = this.#out;
    if (out.length === 0) return !this.#stopped && !this.#res.destroyed;
    this.#out = [];
    if (this.#res.destroyed) return false;
    // Every event is written (the socket buffers what the client has not taken); one wait for all of them.
    let ok = true;
    const ids = this.#ids;
    for (const bytes of out) {
      ids?.feed(bytes);
      ok = this.#res.write(bytes) && ok;
    }
    if (this.#stopped) return false;
    return ok || drained(this.#res);
  }
}

/**
 * Relay an SSE body (see the module comment) and end `res`. When the upstream fails mid-stream, the requests of
 * this exchange still awaited get `failure(error)` as events of their own where that can be written cleanly.
 * Synchronous when the whole body was already here and nothing had to wait (the usual small answer): no
 * promise per exchange, as a small JSON answer has none.
 */
export function relaySse(body: RelayBody, res: ServerResponse, ctx: RelayContext, failure: (err: unknown) => RetrofitError | undefined): RelayEnd | Promise<RelayEnd> {
  const ended = relayBody(body, res, ctx, failure);
  return ended instanceof Promise ? ended.then((end) => finished(end, res, ctx)) : finished(ended, res, ctx);
}

function finished(end: RelayEnd, res: ServerResponse, ctx: RelayContext): RelayEnd {
  // Answers that needed no parsing left their entries behind; a strict one may still come on a replay.
  for (const p of ctx.own) if (p.expect.kind === 'rewrite' && p.expect.nativeOnly) ctx.state?.pending.forget(p);
  if (end.kind === 'complete' || end.kind === 'resumable' || (end.kind === 'failed' && end.answered)) res.end();
  else res.destroy();
  return end;
}

function relayBody(body: RelayBody, res: ServerResponse, ctx: RelayContext, failure: (err: unknown) => RetrofitError | undefined): RelayEnd | Promise<RelayEnd> {
  const relay = new SseRelay(res, ctx);
  const complete = body.takeComplete?.();
  if (!complete) return relayChunks(relay, body, body, failure);
  try {
    for (let i = 0; i < complete.length; i++) {
      const ok = relay.chunk(complete[i]!);
      if (ok === true) continue;
      if (ok === false) return gone(relay, body);
      return relayChunks(relay, body, complete.slice(i + 1), failure, ok);
    }
    const ended = relay.end();
    if (typeof ended === 'boolean') return ended ? COMPLETE : GONE;
    return ended.then((ok) => (ok ? COMPLETE : GONE), (err: unknown) => failed(relay, err, failure));
  } catch (err) {
    return failed(relay, err, failure);
  }
}

/** The client is gone, or the relay stopped the stream itself (then nothing more is wanted from the upstream). */
function gone(relay: SseRelay, body: RelayBody): RelayEnd {
  if (!relay.stopped) return GONE;
  body.destroy?.();
  return COMPLETE;
}

async function failed(relay: SseRelay, err: unknown, failure: (err: unknown) => RetrofitError | undefined): Promise<RelayEnd> {
  const error = failure(err);
  // Only a broken connection: a timeout or a shutdown is the gateway's answer, which a resumption would not change.
  if (error?.code === 'RETROFIT_ERR_UPSTREAM_RESET' && relay.resumable) return relay.leftToResume(err);
  const answered = error !== undefined && (await relay.fail(error));
  return { kind: 'failed', error: err, answered };
}

/**
 * `chunks` (the body as it arrives, or what is left of a whole one) relayed one by one, then the end; after
 * `waiting` (a chunk of a whole body that had to wait: a worker's rewrite, a client behind) settles.
 */
async function relayChunks(relay: SseRelay, body: RelayBody, chunks: Iterable<Buffer> | AsyncIterable<Buffer>, failure: (err: unknown) => RetrofitError | undefined, waiting?: Promise<boolean>): Promise<RelayEnd> {
  try {
    if (waiting && !(await waiting)) return gone(relay, body);
    for await (const chunk of chunks) {
      const ok = relay.chunk(chunk);
      if (ok !== true && (ok === false || !(await ok))) return gone(relay, body);
    }
    const ended = relay.end();
    return ended === true || (ended !== false && (await ended)) ? COMPLETE : GONE;
  } catch (err) {
    return failed(relay, err, failure);
  }
}
