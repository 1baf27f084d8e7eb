/**
 * The one place the edge writes on a raw response what did not come from an upstream: a JSON-RPC error from
 * the registry (src/errors.ts) with its HTTP status, any other JSON answer, an upstream's own answer passed on
 * whole, the headers of the SSE streams the gateway writes itself, and writes that wait for a slow client.
 * SSE frames are encoded by src/stream/sse-encode.ts. Every route hijacks its reply first (src/http/server/gate.ts),
 * so nothing else writes to the response.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { RetrofitError } from '../errors.js';
import type { JsonRpcId } from '../jsonrpc/classify.js';
import { errorAnswer } from '../jsonrpc/id-literal.js';
import type { EventBytes } from '../stream/sse-encode.js';

/**
 * Headers of every SSE answer the gateway writes itself. No `Connection`: Node sets it per request (keep-alive,
 * or close when the client asked for it, as RFC 9112 requires), and a fixed value would override that.
 */
export const SSE_HEADERS: Readonly<OutgoingHttpHeaders> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

/** Write an event (one buffer, or its pieces in order); false when the client is behind (as res.write). */
export function writeEvent(res: ServerResponse, bytes: EventBytes): boolean {
  if (Buffer.isBuffer(bytes)) return res.write(bytes);
  let ok = true;
  for (const piece of bytes) ok = res.write(piece) && ok;
  return ok;
}

/** Write `body` as the whole answer, with its length. */
export function writeBody(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: Buffer | string): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Write `value` as the whole JSON answer. */
export function writeJson(res: ServerResponse, status: number, value: unknown, headers: OutgoingHttpHeaders = {}): void {
  writeBody(res, status, { ...headers, 'content-type': 'application/json' }, JSON.stringify(value));
}

/**
 * Write `error` as the whole answer: its HTTP status, its JSON-RPC error body for request `id` (written as
 * `idLiteral`, the client's own spelling, when JSON.parse rounded it).
 */
export function writeError(res: ServerResponse, error: RetrofitError, id: JsonRpcId = null, headers: OutgoingHttpHeaders = {}, idLiteral?: string): void {
  writeBody(res, error.status, { ...headers, 'content-type': 'application/json' }, errorAnswer(error, id, idLiteral));
}

/**
 * Answer an unexpected failure (a bug): 500 RETROFIT_ERR_INTERNAL, which tells the client nothing about it,
 * while nothing was sent; else the connection ends (the only signal left once bytes went out).
 */
export function writeInternalError(res: ServerResponse): void {
  if (res.headersSent) res.destroy();
  else writeError(res, new RetrofitError('RETROFIT_ERR_INTERNAL', ['the gateway failed to answer this request']));
}

/**
 * Resolves once `res` can take more (true) or is gone (false). Both listeners are removed whichever fires
 * first, so a long stream to a slow client waits any number of times without growing.
 */
export function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve(!res.destroyed);
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Write with backpressure: resolves false when the client went away. */
export function write(res: ServerResponse, chunk: Buffer): boolean | Promise<boolean> {
  if (res.destroyed) return false;
  return res.write(chunk) || drained(res);
}

/** Forward a body's chunks untouched, with backpressure. Resolves false when the client went away. */
export async function pipeBody(res: ServerResponse, body: AsyncIterable<Buffer>): Promise<boolean> {
  for await (const chunk of body) {
    const ok = write(res, chunk);
    if (ok !== true && (ok === false || !(await ok))) return false;
  }
  return true;
}
