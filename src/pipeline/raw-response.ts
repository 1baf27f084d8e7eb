/**
 * A response that reached the pipeline as the bytes the upstream sent (src/pipeline/rewrite.ts respondToRaw):
 * parsed on the event loop only where a worker could not take it, else known by the worker's stub of it.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { PoolAnswer } from './offload/pool.js';
import type { Rewritten } from './request.js';

export type Parsed = { readonly ok: true; readonly message: JsonObject } | { readonly ok: false; readonly parsed?: unknown };

/** Raw bytes → the one response with `id` and a result or error, or what they were instead. */
export function parseResponse(raw: Buffer | string, id: string | number): Parsed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return { ok: false };
  }
  if (!isJsonObject(parsed) || parsed.method !== undefined || parsed.id !== id || !('result' in parsed || 'error' in parsed)) return { ok: false, parsed };
  return { ok: true, message: parsed };
}

/** The bookkeeping part of a response the worker parsed: id, and result.task (a tools/call that created a task). */
export function stubOf(id: string | number, answer: PoolAnswer): JsonObject {
  return answer.stub ?? { jsonrpc: '2.0', id, result: {} };
}

/** What the pipeline answers for bytes that were not the response expected: a mismatch, with what they were. */
export function mismatchOf(parsed: Extract<Parsed, { ok: false }>): Rewritten {
  return { kind: 'mismatch', ...(parsed.parsed !== undefined && { parsed: parsed.parsed }) };
}
