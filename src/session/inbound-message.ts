/**
 * One message from an upstream as the session saw it (./inbound.ts), and the pieces of its handling that the
 * parsed path, a large message read from its bytes and a large batch's answers rewritten from their own bytes
 * (./inbound-batch.ts) share: finding the awaited request, settling an answer from a worker's reading of it,
 * and writing a message again with its id, and every number literal a double cannot hold, as the upstream
 * wrote them.
 */
import { RetrofitError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { putIdLiteral } from '../jsonrpc/id-literal.js';
import { answerProblem } from '../jsonrpc/strict.js';
import type { InspectedMessage } from '../pipeline/offload/inspect.js';
import type { Rewriter, Rewritten } from '../pipeline/rewrite.js';
import { stringifyKept, trailOf, type LiteralTrail } from '../json-literals.js';
import type { Pending } from './pending.js';
import type { SessionState } from './state.js';

/** One message of the data, as the session saw it. */
export interface InboundMessage<S = unknown> {
  /** The message as received (parsed), or a worker's stub of it (id, result.task) when only the worker parsed it. */
  readonly message: JsonObject;
  /** The request it answers, when it answers one of ours. */
  readonly pending?: Pending<S>;
  /** The message to send instead, when it changed (serialised by a worker when `bytes`). */
  readonly replaced?: JsonObject | Buffer;
  /** `strict`: it answers `pending` but is no response a strict client takes; why (nothing was settled). */
  readonly problem?: string;
  /**
   * `split`, one message of a batch: its JSON to send on its own — its bytes (or text) as the upstream wrote
   * them, or when it changed `replaced` with its id as the upstream wrote it. Absent only when the caller
   * gave no original text to cut it from (then `message` is the whole message, parsed here).
   */
  readonly json?: string | Buffer;
}

/** The data after the session: what to send, and what it held. */
export interface Inbound<S = unknown> {
  /** JSON to send instead of the data, when anything in it changed; else send the data as received. */
  readonly out?: string | Buffer;
  /** Its messages in order (empty when the data was not parsed: nothing in it concerned the session). */
  readonly messages: readonly InboundMessage<S>[];
  /** The data was a JSON array (a batch). */
  readonly batch: boolean;
  /** The data was not JSON at all. */
  readonly invalid?: boolean;
}

/** Options for one call. */
export interface InboundOptions {
  /** Parse even when nothing is pending (gateway-owned sessions route every message). */
  readonly always?: boolean;
  /** Hold answers to what a strict client takes (see InboundMessage.problem): gateway-owned sessions. */
  readonly strict?: boolean;
  /** Give each message of a batch its own JSON (InboundMessage.json): gateway-owned sessions route them apart. */
  readonly split?: boolean;
}

/** The awaited answer a large message was found to be, before it was read here. */
export interface Awaited<S> {
  readonly id: string | number;
  readonly literal: string | undefined;
  readonly pending: Pending<S>;
}

/** The awaited request `message` answers (`literal`: its id as the upstream wrote it, when inexact), taken off the table. */
export function answerOf<S>(state: SessionState<S>, message: unknown, literal: string | undefined): Pending<S> | undefined {
  if (!isJsonObject(message) || message.method !== undefined || !('result' in message || 'error' in message)) return undefined;
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? state.pending.answer(id, literal) : undefined;
}

/**
 * One message as JSON text. A message nested deeper than the stack can serialise (a rewrite the engine's
 * bounds should never produce) answers its request with an error instead: never a throw that would leave the
 * request unanswered.
 */
function stringify<S>(m: InboundMessage<S>, part: unknown, trail: LiteralTrail | undefined): string {
  try {
    return stringifyKept(part, trail);
  } catch (err) {
    const id = m.message.id;
    const error = new RetrofitError('RETROFIT_ERR_INTERNAL', ['the rewritten message could not be serialised'], { cause: err });
    return JSON.stringify(error.toJsonRpc(typeof id === 'string' || typeof id === 'number' ? id : null));
  }
}

/**
 * One message written again (a worker's bytes as they are), with its id as the upstream wrote it (`literal`,
 * when inexact; see src/jsonrpc/id-literal.ts) and the inexact number literals of `trail` (its original's:
 * literalTrails) where they still stand.
 */
export function written<S>(m: InboundMessage<S>, literal: string | undefined, trail?: LiteralTrail): string | Buffer {
  const part = m.replaced ?? m.message;
  return putIdLiteral(Buffer.isBuffer(part) ? part : stringify(m, part, trail), m.message.id, literal);
}

/** The trails of a text's messages, found once however often asked (see trailsOf). */
export type Trails = () => (LiteralTrail | undefined)[] | undefined;

/** `trailsOf(batch, count, original)`, computed on the first ask only. */
export function trailsOnce(batch: boolean, count: number, original: string | Buffer | undefined): Trails {
  let trails: (LiteralTrail | undefined)[] | undefined | null = null;
  return () => (trails === null ? (trails = trailsOf(batch, count, original)) : trails);
}

/**
 * The trail of each of `messages`' inexact number literals (`trails`: of the text they were parsed from), for
 * written(); undefined, without asking, when no message is written again from its parsed form.
 */
export function literalTrails<S>(messages: readonly (InboundMessage<S> | undefined)[], trails: Trails): (LiteralTrail | undefined)[] | undefined {
  return messages.some((m) => m?.replaced !== undefined && !Buffer.isBuffer(m.replaced)) ? trails() : undefined;
}

/** The trail of each of `count` messages' inexact number literals in `original` (see literalTrails), asked for outright. */
export function trailsOf(batch: boolean, count: number, original: string | Buffer | undefined): (LiteralTrail | undefined)[] | undefined {
  if (original === undefined) return undefined;
  const trail = trailOf(typeof original === 'string' ? original : original.toString('utf8'));
  if (trail === undefined) return undefined;
  if (!batch) return [trail];
  return trail.array ? Array.from({ length: count }, (_, i) => trail.children.get(String(i))) : undefined;
}

/**
 * What the pipeline made of an awaited answer it read from its bytes (`r`, no mismatch) → the session's
 * bookkeeping, on the original or the worker's stub of it (which only a valid response gets).
 */
export function settledFromBytes<S>(state: SessionState<S>, awaited: Awaited<S>, r: Exclude<Rewritten, { kind: 'mismatch' }>, strict: boolean): InboundMessage<S> {
  const answered = state.pending.answer(awaited.id, awaited.literal) ?? (strict ? undefined : awaited.pending);
  // Strict: answered meanwhile (past its deadline, say) — nobody waits for it any more.
  if (!answered) return { message: r.original };
  // The worker's stub of a response it read stands for one it found valid (src/pipeline/offload/worker.ts).
  const problem = strict ? answerProblem(answered.method, r.original) : undefined;
  if (problem !== undefined) return { message: r.original, pending: answered, problem };
  state.settle(answered, r.original);
  const replaced = r.kind === 'message' ? r.message : r.kind === 'bytes' ? r.bytes : undefined;
  return { message: r.original, pending: answered, ...(replaced !== undefined && { replaced }) };
}

/** What a strict client finds wrong with a message the worker inspected, as the answer to a request of `method`. */
export function inspectedProblem(m: InspectedMessage, method: string): string | undefined {
  return m.problem ?? (method === 'tools/call' ? m.toolProblem : undefined);
}

/**
 * one() on a worker's stub of a message that needs nothing rewritten (see ./inbound.ts readingOf): an answer
 * to an awaited request is taken off the table, or, with `strict`, marked with what a strict client finds
 * wrong. An answer the pipeline leaves unread is settled by its stub and booked with `own`, its own bytes.
 */
export function fromStub<S>(state: SessionState<S>, rewriter: Rewriter, m: InspectedMessage & { readonly stub: JsonObject }, own: Buffer, strict: boolean): InboundMessage<S> {
  const message = m.stub;
  const id = message.id;
  if (strict && (m.problem !== undefined || m.toolProblem !== undefined) && (typeof id === 'string' || typeof id === 'number')) {
    const pending = state.pending.peek(id, m.literal);
    const problem = pending && !pending.answered ? inspectedProblem(m, pending.method) : undefined;
    if (problem !== undefined) return { message, pending: state.pending.answer(id, m.literal)!, problem };
  }
  const pending = answerOf(state, message, m.literal);
  if (!pending) return { message };
  if (pending.expect.kind === 'rewrite') {
    // What the session learns of an answer (a task it created) is in the stub.
    state.settle(pending, message);
    rewriter.passedUnread(pending.expect.request, own, message.result ?? null);
  }
  return { message, pending };
}
