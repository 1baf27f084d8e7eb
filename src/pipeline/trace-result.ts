/**
 * What a traced request's span records of a tools/call result, the same whichever way it was retrofitted:
 * inline (src/pipeline/rewrite.ts callInline records it from the result it holds), or on a worker, which
 * reports the same facts of the result it held parsed (src/pipeline/offload/protocol.ts Traced).
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { TraceRequest, Traced } from './offload/protocol.js';
import type { PendingRequest } from './request.js';

/** What a worker job must report for the request's span; undefined when the request is not traced. */
export function traceRequestOf(request: PendingRequest): TraceRequest | undefined {
  return request.trace && { capture: request.trace.captures };
}

/** A tool that failed answers JSON-RPC success with isError: the span says the operation failed. */
export function traceToolError(request: PendingRequest, result: unknown): void {
  if (isJsonObject(result) && result.isError === true) request.trace?.toolError();
}

/**
 * A worker's report on the span (its time counts from `started`, the queue included). `projected`: what the
 * client got instead of the worker's result, made on this thread; its text is taken here, its size is not
 * measured (that would mean serialising a large result on the event loop).
 */
export function traceWorkerResult(request: PendingRequest, started: number, traced: Traced | undefined, projected?: JsonObject): void {
  const trace = request.trace;
  if (!trace || !traced) return;
  if (traced.toolError) trace.toolError();
  trace.retrofitCost({ ms: performance.now() - started, textBytes: traced.textBytes, ...(projected === undefined && { resultBytes: traced.resultBytes }) });
  if (projected) trace.result(projected);
  else if (traced.text !== undefined) trace.resultText(traced.text);
}

/**
 * traceWorkerResult with a `projected` result no thread here holds parsed (a large answer delivered as if its
 * tool were unconfigured), measured on a worker: its text (with capture) and, where the span of the answer
 * parsed here has it (Traced.sourceBytes), its size.
 */
export function traceWorkerProjection(request: PendingRequest, started: number, traced: Traced | undefined, projected: { readonly text?: string | undefined; readonly bytes?: number | undefined }): void {
  const trace = request.trace;
  if (!trace || !traced) return;
  if (traced.toolError) trace.toolError();
  const measured = traced.sourceBytes !== undefined && projected.bytes !== undefined;
  trace.retrofitCost({ ms: performance.now() - started, textBytes: traced.textBytes, ...(measured && { resultBytes: projected.bytes }) });
  if (projected.text !== undefined) trace.resultText(projected.text);
}
