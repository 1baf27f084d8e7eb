/**
 * Moving upstream response bodies to the client. SSE goes event by event: each block is written as soon as
 * it is complete — its raw bytes, unless it is a response the matcher rewrote. JSON bodies that may need
 * rewriting are read up to a bound and parsed once; everything else is piped through as it arrives.
 */
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { RetrofitError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Handled, ResponseMatcher } from '../session/responses.js';
import { eventWithJson, joinMessages } from '../offload/splice.js';
import { SseSplitter, serializeEvent, type SseEvent } from './sse.js';

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

/**
 * Each message of a (possibly batched) body through the matcher. Synchronous unless a result went to a
 * worker thread (Rewriter.rewriteLarge); then a promise, which keeps this body's place in its stream.
 */
function handleAll(batch: readonly unknown[], matcher: ResponseMatcher): Handled[] | Promise<Handled[]> {
  let deferred = false;
  const out = batch.map((m) => {
    const handled = matcher.handleDeferred(m);
    if (handled instanceof Promise) deferred = true;
    return handled;
  });
  return deferred ? Promise.all(out) : (out as Handled[]);
}

/**
 * The JSON to send for handled messages — text, or bytes when a worker serialised one of them — or undefined
 * when none changed (send the original bytes).
 */
function serialize(handled: readonly Handled[], batch: boolean): string | Buffer | undefined {
  if (!handled.some((h) => h.changed)) return undefined;
  if (!handled.some((h) => h.serialized)) return JSON.stringify(batch ? handled.map((h) => h.message) : handled[0]!.message);
  return joinMessages(handled.map((h) => h.serialized ?? h.message), batch);
}

function transformEvent(event: SseEvent, matcher: ResponseMatcher, log: Logger): Buffer | Promise<Buffer> {
  if (!event.complete || event.data.length === 0 || !matcher.active) return event.raw;
  const data = event.data.join('\n');
  // A large response of ours: parsed and rewritten on a worker; the event loop does not even parse it.
  const raw = matcher.handleRaw(data);
  if (raw) return raw.then((h) => (h === undefined ? parseEvent(event, data, matcher, log) : h.serialized ? eventWithJson(event, h.serialized) : event.raw));
  return parseEvent(event, data, matcher, log);
}

function parseEvent(event: SseEvent, data: string, matcher: ResponseMatcher, log: Logger): Buffer | Promise<Buffer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    log.debug({ eventId: event.id }, 'SSE event data is not JSON; forwarded untouched');
    return event.raw;
  }
  const batch = Array.isArray(parsed);
  const handled = handleAll(Array.isArray(parsed) ? parsed : [parsed], matcher);
  const bytes = (all: readonly Handled[]): Buffer => {
    const json = serialize(all, batch);
    return json === undefined ? event.raw : typeof json === 'string' ? serializeEvent(event, json) : eventWithJson(event, json);
  };
  return handled instanceof Promise ? handled.then(bytes) : bytes(handled);
}

/** The bound on one SSE event while responses on the stream may be rewritten (limits.maxResultBytes). */
export interface SseLimit {
  readonly max: number;
  readonly upstream: string;
}

/**
 * An event over the limit would have to be held whole to be rewritten: instead, each request of this exchange
 * still waiting gets a RESULT_TOO_LARGE error event, and the stream ends — never a truncated message.
 */
async function overLimit(res: ServerResponse, matcher: ResponseMatcher, limit: SseLimit, log: Logger): Promise<void> {
  const ids = matcher.unanswered();
  log.warn({ upstream: limit.upstream, limit: limit.max, ids }, 'upstream SSE event over maxResultBytes; stream ended');
  for (const id of ids) {
    const error = new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [limit.upstream, limit.max]).toJsonRpc(id);
    if (!(await write(res, serializeEvent({ event: 'message', comments: [] }, JSON.stringify(error))))) return;
  }
}

/** Relay an SSE body event by event; with `limit`, events that may be rewritten are bounded. */
export async function relaySse(body: AsyncIterable<Buffer>, res: ServerResponse, matcher: ResponseMatcher, log: Logger, limit?: SseLimit): Promise<void> {
  const splitter = new SseSplitter();
  // Bytes of the event being assembled: pushed minus already emitted.
  let pending = 0;
  for await (const chunk of body) {
    pending += chunk.length;
    for (const event of splitter.push(chunk)) {
      pending -= event.raw.length;
      if (limit && event.raw.length > limit.max && matcher.active) return overLimit(res, matcher, limit, log);
      // A result on a worker holds the events after it: the client gets them in the upstream's order.
      const out = transformEvent(event, matcher, log);
      if (!(await write(res, out instanceof Promise ? await out : out))) return;
    }
    if (limit && pending > limit.max && matcher.active) return overLimit(res, matcher, limit, log);
  }
  for (const event of splitter.end()) if (!(await write(res, event.raw))) return;
}

/**
 * Read a whole JSON body (bounded), hand each response in it to the matcher, and return the bytes to send:
 * the original bytes when nothing changed, else the re-serialised body. Throws RESULT_TOO_LARGE past `max`,
 * and UPSTREAM_PROTOCOL when the body does not parse while a request of this exchange awaits its answer.
 */
export async function readAndRewriteJson(
  body: AsyncIterable<Buffer> & { destroy?: (err?: Error) => unknown },
  max: number,
  upstream: string,
  matcher: ResponseMatcher,
  log: Logger,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy?.();
      throw new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [upstream, max]);
    }
    parts.push(chunk);
  }
  const bytes = Buffer.concat(parts);
  if (bytes.length === 0) return bytes;
  // A large response of ours: parsed and rewritten on a worker; the event loop does not even parse it.
  const raw = matcher.handleRaw(bytes);
  if (raw) {
    const handled = await raw;
    if (handled) return handled.serialized ?? bytes;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    // A request of this exchange awaits its answer here: truncated or broken JSON must not reach the client
    // as a success-status body it cannot parse (clients then wait forever); it becomes a JSON-RPC error.
    if (matcher.unanswered().length > 0) {
      log.warn({ upstream, bytes: bytes.length, head: bytes.subarray(0, 200).toString('utf8') }, 'upstream JSON body does not parse');
      throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream], { cause: err });
    }
    // Nothing of ours awaits it: the client sees exactly what the upstream sent.
    log.warn({ upstream }, 'upstream JSON body does not parse; forwarded untouched');
    return bytes;
  }
  const batch = Array.isArray(parsed);
  const handled = handleAll(Array.isArray(parsed) ? parsed : [parsed], matcher);
  const json = serialize(handled instanceof Promise ? await handled : handled, batch);
  return json === undefined ? bytes : typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
}
