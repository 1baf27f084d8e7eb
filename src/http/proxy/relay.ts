/**
 * Moving a proxied upstream's answer to the client, bounded whatever the upstream sends: what the relays share
 * (the exchange's view of its session) and the JSON relay. A JSON body that may need rewriting is read up to
 * limits.maxResultBytes and goes through the session once; SSE is relayed block by block (./sse-relay.ts);
 * anything else is piped through as it arrives (src/http/write.ts pipeBody).
 */
import { RetrofitError } from '../../errors.js';
import { MAX_DEPTH, nestedTooDeeplyInSlices } from '../../jsonrpc/strict.js';
import type { Log } from '../../log.js';
import type { Rewriter } from '../../pipeline/rewrite.js';
import { inbound, type Inbound } from '../../session/inbound.js';
import type { Pending } from '../../session/pending.js';
import type { SessionState } from '../../session/state.js';
import { HeldBytes } from '../../stream/held.js';
import type { ServerStream } from './streams.js';

/** What the relays need of a body: iteration, and optionally early abort and a synchronous read (exchange.ts). */
export type RelayBody = AsyncIterable<Buffer> & { destroy?: (err?: Error) => unknown; takeComplete?: () => Buffer[] | undefined };

/** What the relays need of the exchange. */
export interface RelayContext {
  /** The session the answers belong to (undefined: nothing of this stream can need rewriting). */
  readonly state: SessionState | undefined;
  readonly rewriter: Rewriter;
  /** The exchange's log (its pino child bound on first use: binding one per exchange is a visible cost). */
  readonly log: Log;
  /** limits.maxResultBytes. */
  readonly max: number;
  readonly upstream: string;
  /** The upstream's timeoutMs: how long a JSON body that must be held may take to arrive after its headers. */
  readonly timeoutMs: number;
  /**
   * This exchange's own requests awaited in the session (their ids, and literals where JSON.parse rounded
   * them): the ones a failed stream still owes an answer.
   */
  readonly own: readonly Pending[];
  /** A server stream that takes the gateway's own events between blocks (list_changed after a reload). */
  readonly stream?: ServerStream | undefined;
  /** The client's revision lets it resume a stream it got event ids on (2026-07-28 does not). */
  readonly resumes?: boolean;
}

const STRUCTURED = '"structuredContent"';
const STRUCTURED_BYTES = Buffer.from(STRUCTURED);
/**
 * False when the session cannot change `data`, so it need not even be handed over: it awaits nothing, or only
 * answers of tools without a configured schema and `data` holds no structuredContent.
 */
export function mayChange(state: SessionState, data: Buffer | string): boolean {
  const table = state.pending;
  if (table.empty) return false;
  if (!table.onlyNative) return true;
  return typeof data === 'string' ? data.includes(STRUCTURED) : data.indexOf(STRUCTURED_BYTES) !== -1;
}

/**
 * Read a whole JSON body (bounded) and put it through the session: the bytes to send are the original ones
 * when nothing changed. Throws RESULT_TOO_LARGE past `max`, and UPSTREAM_PROTOCOL when the body does not
 * parse while a request of this exchange awaits its answer. Synchronous (no promise) when the body was
 * already complete and the session settles it synchronously: the usual small answer.
 */
export function readAndRewriteJson(body: RelayBody, ctx: RelayContext): Buffer | Promise<Buffer> {
  const complete = body.takeComplete?.();
  if (complete === undefined) return readAll(body, ctx).then((bytes) => rewriteJson(bytes, ctx));
  let size = 0;
  for (const chunk of complete) size += chunk.length;
  if (size > ctx.max) throw new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [ctx.upstream, ctx.max]);
  if (complete.length === 1) return rewriteJson(complete[0]!, ctx);
  const held = holder(ctx);
  for (const chunk of complete) held.push(chunk);
  return rewriteJson(held.take(), ctx);
}

/**
 * The rest of a body that is held whole, within `max` bytes and `timeoutMs` (an upstream that sends its
 * headers and then stalls, or declares more bytes than it sends, would otherwise hold its client forever):
 * past the deadline the upstream request is aborted and the client gets RETROFIT_ERR_UPSTREAM_TIMEOUT.
 */
async function readAll(body: RelayBody, ctx: RelayContext): Promise<Buffer> {
  const held = holder(ctx);
  let late: RetrofitError | undefined;
  const timer = setTimeout(() => {
    late = new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', [ctx.upstream, ctx.timeoutMs]);
    body.destroy?.(late);
  }, ctx.timeoutMs);
  try {
    for await (const chunk of body) {
      if (held.length + chunk.length > ctx.max) {
        body.destroy?.();
        throw new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [ctx.upstream, ctx.max]);
      }
      held.push(chunk);
    }
  } catch (err) {
    throw late ?? err;
  } finally {
    clearTimeout(timer);
  }
  return held.take();
}

/** What holds a body or block: one large enough for a worker is kept in shared memory as it arrives (src/stream/held.ts). */
export function holder(ctx: RelayContext): HeldBytes {
  return new HeldBytes(ctx.rewriter.rawThreshold ?? Infinity, ctx.max);
}

function rewriteJson(body: Buffer, ctx: RelayContext): Buffer | Promise<Buffer> {
  if (body.length === 0 || !ctx.state) return body;
  // A UTF-8 byte order mark is no part of the JSON (fetch's .json() drops it too): read, and sent on, without it.
  const bytes = hasBom(body) ? body.subarray(3) : body;
  const state = ctx.state;
  if (!mayChange(state, bytes)) {
    // Not read; but an answer awaited here must at least look like one JSON object or array at both ends: a body
    // cut short, or an answer followed by a message that never ended, is no reply a client can parse.
    if (looksWhole(bytes) || !ctx.own.some((p) => state.pending.holds(p))) return bytes;
    ctx.log.warn({ bytes: bytes.length, tail: bytes.subarray(-80).toString('utf8') }, 'upstream JSON body does not end as a JSON message; its request gets an error');
    throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [ctx.upstream]);
  }
  // Nothing may recurse over JSON nested this deep (the stdio and legacy SSE links refuse it as well): an
  // answer awaited here becomes a JSON-RPC error, anything else passes as it came.
  const deep = nestedTooDeeplyInSlices(bytes);
  return deep instanceof Promise ? deep.then((found) => rewriteShallow(bytes, found, state, ctx)) : rewriteShallow(bytes, deep, state, ctx);
}

const hasBom = (bytes: Buffer): boolean => bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** The body starts with `{` or `[` and ends with `}` or `]` (white space aside): two bytes read, not a parse. */
function looksWhole(bytes: Buffer): boolean {
  let start = 0;
  let end = bytes.length - 1;
  while (start <= end && isSpace(bytes[start]!)) start++;
  while (end >= start && isSpace(bytes[end]!)) end--;
  if (start >= end) return false;
  const first = bytes[start];
  const last = bytes[end];
  return (first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d);
}

function rewriteShallow(bytes: Buffer, deep: boolean, state: SessionState, ctx: RelayContext): Buffer | Promise<Buffer> {
  const waiting = ctx.own.some((p) => state.pending.holds(p));
  if (deep) {
    if (!waiting) return bytes;
    ctx.log.warn({ bytes: bytes.length }, `upstream message nested deeper than ${MAX_DEPTH} levels; its request gets an error`);
    throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [ctx.upstream]);
  }
  const result = inbound(state, ctx.rewriter, bytes, ctx.log);
  return result instanceof Promise ? result.then((handled) => outcome(bytes, handled, waiting, ctx)) : outcome(bytes, result, waiting, ctx);
}

function outcome(bytes: Buffer, handled: Inbound, waiting: boolean, ctx: RelayContext): Buffer {
  if (handled.invalid) {
    // A request of this exchange awaits its answer here: truncated or broken JSON must not reach the client
    // as a success-status body it cannot parse (clients then wait forever); it becomes a JSON-RPC error.
    if (waiting) {
      ctx.log.warn({ bytes: bytes.length, head: bytes.subarray(0, 200).toString('utf8') }, 'upstream JSON body does not parse');
      throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [ctx.upstream]);
    }
    ctx.log.warn('upstream JSON body does not parse; forwarded untouched');
    return bytes;
  }
  if (handled.out === undefined) return bytes;
  return typeof handled.out === 'string' ? Buffer.from(handled.out, 'utf8') : handled.out;
}

