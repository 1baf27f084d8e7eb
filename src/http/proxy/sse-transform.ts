/**
 * One complete block an SSE relay held (./sse-relay.ts) → the bytes to send for it: its own, when its session
 * cannot change it; a JSON-RPC error in its place, when it answers an awaited request but is nested deeper than
 * anything may recurse over; or its message as the session rewrote it (src/session/inbound.ts), framed again.
 */
import { RetrofitError } from '../../errors.js';
import { errorAnswer, responseIdLiteral } from '../../jsonrpc/id-literal.js';
import { endsOf, sniffResponseId } from '../../jsonrpc/sniff.js';
import { MAX_DEPTH, nestedTooDeeplyInSlices } from '../../jsonrpc/strict.js';
import { inbound, type Inbound } from '../../session/inbound.js';
import type { SessionState } from '../../session/state.js';
import { parseBlock, parseLargeBlock, type SseEvent } from '../../stream/sse.js';
import { encodeEvent, eventPieces, messageEvent, type EventBytes } from '../../stream/sse-encode.js';
import { mayChange, type RelayContext } from './relay.js';

function eventBytes(event: SseEvent, handled: Inbound): EventBytes {
  const out = handled.out;
  if (out === undefined) return event.raw;
  // A worker's bytes (a large result) are not copied once more to join them with the frame.
  return Buffer.isBuffer(out) ? eventPieces(event, out) : encodeEvent(event, out);
}

/**
 * A held event nested deeper than MAX_DEPTH: nothing may recurse over it (the stdio and legacy SSE links
 * refuse such messages too). The request it answers (its id read from its ends) gets UPSTREAM_PROTOCOL in
 * its place; an event that answers nobody waiting passes as it came.
 */
function tooDeep(event: SseEvent, data: string | Buffer, ctx: RelayContext): Buffer {
  const id = sniffResponseId(endsOf(data));
  const pending = id === undefined ? undefined : ctx.state?.pending.peek(id, responseIdLiteral(id, data));
  if (!pending || pending.answered) return event.raw;
  ctx.log.warn({ bytes: data.length, id }, `upstream message nested deeper than ${MAX_DEPTH} levels; its request gets an error`);
  ctx.state!.pending.forget(pending);
  return messageEvent(errorAnswer(new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [ctx.upstream]), pending.id, pending.idLiteral));
}

/** The bytes to send for a complete held block: its own, or the session's rewrite of its message. */
export function transform(raw: Buffer, ctx: RelayContext): EventBytes | Promise<EventBytes> {
  const state = ctx.state;
  if (!state || state.pending.empty) return raw;
  // A large block (one a worker would take) keeps its data as bytes, however many lines it came in: not
  // decoded, and handed to the worker as bytes rather than as a string.
  const threshold = ctx.rewriter.rawThreshold;
  const large = threshold !== undefined && raw.length > threshold ? parseLargeBlock(raw) : undefined;
  if (large) return transformData(large.event, large.data, state, ctx);
  const event = parseBlock(raw);
  if (!event.complete || event.data.length === 0) return raw;
  return transformData(event, event.data.join('\n'), state, ctx);
}

function transformData(event: SseEvent, data: string | Buffer, state: SessionState, ctx: RelayContext): EventBytes | Promise<EventBytes> {
  if (!mayChange(state, data)) return event.raw;
  const deep = nestedTooDeeplyInSlices(data);
  if (deep instanceof Promise) return deep.then((found) => (found ? tooDeep(event, data, ctx) : handleData(event, data, state, ctx)));
  return deep ? tooDeep(event, data, ctx) : handleData(event, data, state, ctx);
}

function handleData(event: SseEvent, data: string | Buffer, state: SessionState, ctx: RelayContext): EventBytes | Promise<EventBytes> {
  const handled = inbound(state, ctx.rewriter, data, ctx.log);
  if (handled instanceof Promise) return handled.then((h) => eventBytes(event, h));
  if (handled.invalid) ctx.log.debug({ eventId: event.id }, 'SSE event data is not JSON; forwarded untouched');
  return eventBytes(event, handled);
}
