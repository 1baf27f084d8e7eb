/**
 * A large message from an upstream that nothing will rewrite (a passthrough tool's answer, a notification, a
 * server→client request), read on a worker instead of the event loop (./worker.ts; src/session/inbound.ts
 * asks for it). The session does not need the message, only what it decides by: for each message its stub —
 * `jsonrpc`, `id`, `method`, the progress token, the request a cancellation names, an error's code, without the
 * bulk —, what a strict client would find wrong with it as an answer (src/jsonrpc/strict.ts responseProblem;
 * toolResultProblem, for the session to apply when it answers a tools/call),
 * and its id as written when JSON.parse cannot give it back exactly. The bytes then go on as they came; a batch's
 * messages each as their own bytes in it, which the worker finds (`span`) for a session that routes them apart.
 */
import { isJsonObject, type Json, type JsonObject } from '../../json.js';
import { elementSpans, type Span } from '../../jsonrpc/batch-elements.js';
import { responseIdLiterals } from '../../jsonrpc/id-literal.js';
import { nestedTooDeeply, responseProblem, toolResultProblem } from '../../jsonrpc/strict.js';
import { META_PROTOCOL_VERSION } from '../../protocol/era.js';
import { utf8Text } from './shared.js';

/** One message of an inspected line or body. */
export interface InspectedMessage {
  /** Absent when the message is not a JSON object (a batch's stray element). */
  readonly stub?: JsonObject;
  /** An answer no strict client takes: why (responseProblem). */
  readonly problem?: string;
  /** A result no strict client takes as a tools/call result: why (toolResultProblem; the session knows what it answers). */
  readonly toolProblem?: string;
  /** Its id as written, when inexact (src/jsonrpc/id-literal.ts). */
  readonly literal?: string;
  /** One message of a batch: where its own JSON lies in the data inspected (offsets of the same bytes or text). */
  readonly span?: Span;
}

/** What the worker found: not JSON, nested past MAX_DEPTH, or the messages (a batch: `batch`). */
export type Inspected = { readonly kind: 'invalid' } | { readonly kind: 'deep' } | { readonly kind: 'messages'; readonly batch: boolean; readonly messages: readonly InspectedMessage[] };

/** Longest error message a stub keeps (logs show its start; nothing decides by it). */
const MESSAGE_CHARS = 1024;

/** A member's value as a stub keeps it: a scalar as it is, a container as an empty one (its kind is all that is read). */
function lean(value: Json | undefined): Json {
  if (value === undefined) return null;
  if (value !== null && typeof value === 'object') return Array.isArray(value) ? [] : {};
  return value;
}

function pick(from: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) if (key in from) out[key] = lean(from[key]);
  return out;
}

/**
 * A result in miniature: every member the native projection decides by (src/retrofit/native.ts, ./result.ts
 * isNonFinal, src/retrofit/profile.ts), so the engine run on it changes it exactly when it would change the
 * whole result (src/pipeline/rewrite.ts leavesUnread, and a configured tool's result a client gets as if
 * unconfigured) — `content` as one text block when it has one (or none),
 * structuredContent as its kind (`{result: null}` for a value that is `{result: …}` alone, which a wrap
 * keeps), a task as its id.
 */
export function resultStub(result: JsonObject): JsonObject {
  const stub = pick(result, ['isError', 'resultType']);
  if ('content' in result) {
    const content = result.content;
    stub.content = Array.isArray(content) ? (content.some((b) => isJsonObject(b) && b.type === 'text') ? [{ type: 'text' }] : []) : lean(content);
  }
  if ('structuredContent' in result) {
    const value = result.structuredContent;
    if (isJsonObject(value)) stub.structuredContent = 'result' in value && Object.keys(value).length === 1 ? { result: null } : {};
    else stub.structuredContent = typeof value === 'string' ? '' : lean(value);
  }
  if ('task' in result) {
    const task = result.task;
    stub.task = isJsonObject(task) && typeof task.taskId === 'string' ? { taskId: task.taskId } : lean(task);
  }
  return stub;
}

/** The members of one message a session reads (src/session/owned.ts, src/session/inbound.ts). */
export function stubOf(m: JsonObject): JsonObject {
  const stub = pick(m, ['jsonrpc', 'id', 'method']);
  // What decides whether a result must be read whole (src/pipeline/rewrite.ts leavesUnread).
  if ('result' in m) stub.result = isJsonObject(m.result) ? resultStub(m.result) : lean(m.result);
  if ('error' in m) {
    const error = m.error;
    if (!isJsonObject(error)) stub.error = lean(error);
    else {
      const kept = pick(error, ['code', 'message']);
      if (typeof kept.message === 'string' && kept.message.length > MESSAGE_CHARS) kept.message = kept.message.slice(0, MESSAGE_CHARS);
      if (isJsonObject(error.data) && typeof error.data.code === 'string') kept.data = { code: error.data.code };
      stub.error = kept;
    }
  }
  if ('params' in m) {
    const params = m.params;
    if (!isJsonObject(params)) stub.params = lean(params);
    else {
      const kept = pick(params, ['progressToken', 'requestId']);
      if (isJsonObject(params._meta)) kept._meta = pick(params._meta, ['progressToken', META_PROTOCOL_VERSION]);
      stub.params = kept;
    }
  }
  return stub;
}

function inspectOne(m: unknown, literal: string | undefined, span: Span | undefined): InspectedMessage {
  if (!isJsonObject(m)) return {};
  const problem = typeof m.method === 'string' ? undefined : responseProblem(m);
  const toolProblem = problem === undefined && typeof m.method !== 'string' && isJsonObject(m.result) ? toolResultProblem(m.result) : undefined;
  return { stub: stubOf(m), ...(problem !== undefined && { problem }), ...(toolProblem !== undefined && { toolProblem }), ...(literal !== undefined && { literal }), ...(span && { span }) };
}

/** Inspect `data` (a message or a batch, its text or UTF-8 bytes), checked for depth before anything recurses over it. */
export function inspectMessage(data: Uint8Array | string): Inspected {
  if (nestedTooDeeply(data)) return { kind: 'deep' };
  const text = utf8Text(data);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'invalid' };
  }
  const literals = responseIdLiterals(parsed, text);
  if (!Array.isArray(parsed)) return { kind: 'messages', batch: false, messages: [inspectOne(parsed, literals?.[0], undefined)] };
  const spans = elementSpans(data);
  const found = spans?.length === parsed.length ? spans : undefined;
  return { kind: 'messages', batch: true, messages: parsed.map((m, i) => inspectOne(m, literals?.[i], found?.[i])) };
}
