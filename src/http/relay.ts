/**
 * Moving a proxied upstream's answer to the client. SSE goes event by event: each block is written as soon
 * as it is complete — its raw bytes, unless the session (src/session/inbound.ts) rewrote the message in it.
 * JSON bodies that may need rewriting are read up to a bound and go through the session once; everything
 * else is piped through as it arrives. Writes respect the client's backpressure.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { RetrofitError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Rewriter } from '../pipeline/rewrite.js';
import { inbound, type Inbound } from '../session/inbound.js';
import type { SessionState } from '../session/state.js';
import { serializeEvent, SseSplitter, type SseEvent } from '../stream/sse.js';
import { eventWithJson } from '../pipeline/offload/splice.js';

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
  readonly log: Logger;
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

function transform(event: SseEvent, ctx: RelayContext): Buffer | Promise<Buffer> {
  const state = ctx.state;
  if (!state || !event.complete || event.data.length === 0 || state.pending.empty) return event.raw;
  const handled = inbound(state, ctx.rewriter, event.data.join('\n'), ctx.log);
  if (handled instanceof Promise) return handled.then((h) => eventBytes(event, h));
  if (handled.invalid) ctx.log.debug({ eventId: event.id }, 'SSE event data is not JSON; forwarded untouched');
  return eventBytes(event, handled);
}

/**
 * An event over the limit would have to be held whole to be rewritten: instead, each request of this exchange
 * still waiting gets a RESULT_TOO_LARGE error event, and the stream ends — never a truncated message.
 */
async function overLimit(res: ServerResponse, ctx: RelayContext): Promise<void> {
  const ids = ctx.own.filter((id) => ctx.state?.pending.has(id));
  ctx.log.warn({ limit: ctx.max, ids }, 'upstream SSE event over maxResultBytes; stream ended');
  for (const id of ids) {
    ctx.state?.pending.release(id);
    const error = new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [ctx.upstream, ctx.max]).toJsonRpc(id);
    if (!(await write(res, serializeEvent({ event: 'message', comments: [] }, JSON.stringify(error))))) return;
  }
}

/** Relay an SSE body event by event; events that may be rewritten are bounded by `ctx.max`. */
export async function relaySse(body: AsyncIterable<Buffer>, res: ServerResponse, ctx: RelayContext): Promise<void> {
  const splitter = new SseSplitter();
  // Bytes of the event being assembled: pushed minus already emitted.
  let pending = 0;
  const active = (): boolean => ctx.state !== undefined && !ctx.state.pending.empty;
  for await (const chunk of body) {
    pending += chunk.length;
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
 * parse while a request of this exchange awaits its answer.
 */
export async function readAndRewriteJson(body: AsyncIterable<Buffer> & { destroy?: (err?: Error) => unknown }, ctx: RelayContext): Promise<Buffer> {
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
  const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  if (bytes.length === 0 || !ctx.state) return bytes;
  const waiting = ctx.own.some((id) => ctx.state?.pending.has(id));
  const result = inbound(ctx.state, ctx.rewriter, bytes, ctx.log);
  const handled = result instanceof Promise ? await result : result;
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
