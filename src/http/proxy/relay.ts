/**
 * Moving a proxied upstream's answer to the client. SSE goes event by event: each block is written as soon
 * as it is complete — its raw bytes, unless the session (src/session/inbound.ts) rewrote the message in it.
 * JSON bodies that may need rewriting are read up to a bound and go through the session once; everything
 * else is piped through as it arrives. Writes respect the client's backpressure.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { RetrofitError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Rewriter } from '../../pipeline/rewrite.js';
import { inbound, type Inbound } from '../../session/inbound.js';
import type { SessionState } from '../../session/state.js';
import { serializeEvent, SseSplitter, type SseEvent } from '../../stream/sse.js';
import { eventWithJson } from '../../pipeline/offload/splice.js';

/** Write with backpressure; resolves false when the client went away. */
async function write(res: ServerResponse, chunk: Buffer): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(chunk)) return true;
  await Promise.race([once(res, 'drain'), once(res, 'close')]);
  return !res.destroyed;
}

/** Forward the body's chunks untouched. */
export async function pipeRaw(body: AsyncIterable<Buffer>, res: ServerResponse): Promise<void> {
  for await (const chunk of body) if (!(await write(res, chunk))) return;
}

/** What the relays need of the exchange. */
export interface RelayContext {
  /** The session the answers belong to (undefined: nothing of this stream can need rewriting). */
  readonly state: SessionState | undefined;
  readonly rewriter: Rewriter;
  /** The exchange's logger, bound on first use (binding one per exchange is a visible cost: src/http/proxy/forward.ts). */
  readonly log: () => Logger;
  /** limits.maxResultBytes. */
  readonly max: number;
  readonly upstream: string;
  /** Ids of this exchange's own requests, for the errors of an over-long event. */
  readonly own: readonly (string | number)[];
}

function eventBytes(event: SseEvent, handled: Inbound): Buffer {
  if (handled.out === undefined) return event.raw;
  return typeof handled.out === 'string' ? serializeEvent(event, handled.out) : eventWithJson(event, handled.out);
}

const STRUCTURED = '"structuredContent"';
const STRUCTURED_BYTES = Buffer.from(STRUCTURED);

/**
 * False when the session cannot change `data`, so it need not even be handed over: it awaits nothing, or only
 * answers of tools without a configured schema and `data` holds no structuredContent. (The same early exit
 * src/session/inbound.ts takes; checked here first so an exchange that changes nothing binds no logger.)
 */
function mayChange(state: SessionState, data: Buffer | string): boolean {
  const table = state.pending;
  if (table.empty) return false;
  if (!table.onlyNative) return true;
  return typeof data === 'string' ? data.includes(STRUCTURED) : data.indexOf(STRUCTURED_BYTES) !== -1;
}

function transform(event: SseEvent, ctx: RelayContext): Buffer | Promise<Buffer> {
  const state = ctx.state;
  if (!state || !event.complete || event.data.length === 0 || state.pending.empty) return event.raw;
  const data = event.data.join('\n');
  if (!mayChange(state, data)) return event.raw;
  const handled = inbound(state, ctx.rewriter, data, ctx.log());
  if (handled instanceof Promise) return handled.then((h) => eventBytes(event, h));
  if (handled.invalid) ctx.log().debug({ eventId: event.id }, 'SSE event data is not JSON; forwarded untouched');
  return eventBytes(event, handled);
}

/**
 * An event over the limit would have to be held whole to be rewritten: instead, each request of this exchange
 * still waiting gets a RESULT_TOO_LARGE error event, and the stream ends — never a truncated message.
 */
async function overLimit(res: ServerResponse, ctx: RelayContext): Promise<void> {
  const ids = ctx.own.filter((id) => ctx.state?.pending.has(id));
  ctx.log().warn({ limit: ctx.max, ids }, 'upstream SSE event over maxResultBytes; stream ended');
  for (const id of ids) {
    ctx.state?.pending.release(id);
    const error = new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [ctx.upstream, ctx.max]).toJsonRpc(id);
    if (!(await write(res, serializeEvent({ event: 'message', comments: [] }, JSON.stringify(error))))) return;
  }
}

/** What the relays need of a body: iteration, and optionally early abort and a synchronous read (exchange.ts). */
export type RelayBody = AsyncIterable<Buffer> & { destroy?: (err?: Error) => unknown; takeComplete?: () => Buffer[] | undefined };

const LF = 0x0a;
const CR = 0x0d;

/** True when the chunk ends with a blank line, i.e. where an SSE block ends (`\n\n` or `\r\n\r\n`). */
function endsBlock(chunk: Buffer): boolean {
  const n = chunk.length;
  if (n < 2 || chunk[n - 1] !== LF) return false;
  return chunk[n - 2] === LF || (n >= 4 && chunk[n - 2] === CR && chunk[n - 3] === LF && chunk[n - 4] === CR);
}

/**
 * Relay an SSE body event by event; events that may be rewritten are bounded by `ctx.max`. A chunk made of
 * whole blocks none of which the session could change (it awaits nothing, or only answers without a schema
 * and the chunk holds no `"structuredContent"`) is written as it came, without splitting it into events.
 */
export async function relaySse(body: RelayBody, res: ServerResponse, ctx: RelayContext): Promise<void> {
  const splitter = new SseSplitter();
  // Bytes of the event being assembled: pushed minus already emitted.
  let pending = 0;
  // The splitter holds nothing (every chunk so far ended a block): a chunk may bypass it.
  let idle = true;
  const active = (): boolean => ctx.state !== undefined && !ctx.state.pending.empty;
  const passes = (chunk: Buffer): boolean => idle && endsBlock(chunk) && (!ctx.state || !(chunk.length <= ctx.max ? mayChange(ctx.state, chunk) : active()));
  // The usual small answer is complete by now: when it passes as it came, it is written without a promise per
  // chunk (it is in memory already, so there is no backpressure to wait for).
  let source: AsyncIterable<Buffer> | readonly Buffer[] = body;
  const complete = body.takeComplete?.();
  if (complete) {
    let i = 0;
    for (; i < complete.length && passes(complete[i]!); i++) if (!res.destroyed) res.write(complete[i]!);
    if (i === complete.length) return;
    source = complete.slice(i);
  }
  for await (const chunk of source) {
    if (passes(chunk)) {
      if (!(await write(res, chunk))) return;
      continue;
    }
    pending += chunk.length;
    idle = endsBlock(chunk);
    for (const event of splitter.push(chunk)) {
      pending -= event.raw.length;
      if (event.raw.length > ctx.max && active()) return overLimit(res, ctx);
      // A result on a worker holds the events after it: the client gets them in the upstream's order.
      const out = transform(event, ctx);
      if (!(await write(res, out instanceof Promise ? await out : out))) return;
    }
    if (pending > ctx.max && active()) return overLimit(res, ctx);
  }
  for (const event of splitter.end()) if (!(await write(res, event.raw))) return;
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
  return rewriteJson(complete.length === 1 ? complete[0]! : Buffer.concat(complete, size), ctx);
}

async function readAll(body: RelayBody, ctx: RelayContext): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > ctx.max) {
      body.destroy?.();
      throw new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [ctx.upstream, ctx.max]);
    }
    parts.push(chunk);
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

function rewriteJson(bytes: Buffer, ctx: RelayContext): Buffer | Promise<Buffer> {
  if (bytes.length === 0 || !ctx.state) return bytes;
  const state = ctx.state;
  if (!mayChange(state, bytes)) return bytes;
  const waiting = ctx.own.some((id) => state.pending.has(id));
  const result = inbound(state, ctx.rewriter, bytes, ctx.log());
  return result instanceof Promise ? result.then((handled) => outcome(bytes, handled, waiting, ctx)) : outcome(bytes, result, waiting, ctx);
}

function outcome(bytes: Buffer, handled: Inbound, waiting: boolean, ctx: RelayContext): Buffer {
  if (handled.invalid) {
    // A request of this exchange awaits its answer here: truncated or broken JSON must not reach the client
    // as a success-status body it cannot parse (clients then wait forever); it becomes a JSON-RPC error.
    if (waiting) {
      ctx.log().warn({ bytes: bytes.length, head: bytes.subarray(0, 200).toString('utf8') }, 'upstream JSON body does not parse');
      throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [ctx.upstream]);
    }
    ctx.log().warn('upstream JSON body does not parse; forwarded untouched');
    return bytes;
  }
  if (handled.out === undefined) return bytes;
  return typeof handled.out === 'string' ? Buffer.from(handled.out, 'utf8') : handled.out;
}
