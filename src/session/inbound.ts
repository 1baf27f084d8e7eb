/**
 * One message (or batch) from an upstream, through the session: answers are matched to the requests that
 * await them, settled (negotiation, task memory) and, where they may change, rewritten by the pipeline.
 * Every transport calls this: the HTTP proxy per JSON body or SSE event, gateway-owned sessions per message
 * their link delivers. A large answer to a request that goes to a worker is not even parsed here: its id is
 * read from its ends and the worker parses it. Any other large message (bytes) is read on the worker too, and
 * the session decides by the stub of it the worker gives back (readOnWorker). With `strict`, an answer to an
 * awaited request that a strict client would drop (src/jsonrpc/strict.ts) is taken off the table unsettled and
 * unrewritten, marked with its problem for the caller to answer with an error. With `split`, each message of a
 * batch comes with its own JSON to send (InboundMessage.json): never a stub, nor the message serialised again
 * when it did not change.
 */
import { RetrofitError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { elementSpans } from '../jsonrpc/batch-elements.js';
import { putIdLiteral, responseIdLiteral, responseIdLiterals } from '../jsonrpc/id-literal.js';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';
import { answerProblem, responseProblem } from '../jsonrpc/strict.js';
import type { Log } from '../log.js';
import type { Inspected, InspectedMessage } from '../pipeline/offload/inspect.js';
import { joinMessages } from '../pipeline/offload/splice.js';
import type { Rewriter, Rewritten } from '../pipeline/rewrite.js';
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

const UNPARSED: Inbound<never> = Object.freeze({ messages: [], batch: false });
const STRUCTURED = '"structuredContent"';

/** Options for one call. */
export interface InboundOptions {
  /** Parse even when nothing is pending (gateway-owned sessions route every message). */
  readonly always?: boolean;
  /** Hold answers to what a strict client takes (see InboundMessage.problem): gateway-owned sessions. */
  readonly strict?: boolean;
  /** Give each message of a batch its own JSON (InboundMessage.json): gateway-owned sessions route them apart. */
  readonly split?: boolean;
}

/** The awaited request `message` answers (`literal`: its id as the upstream wrote it, when inexact), taken off the table. */
function answerOf<S>(state: SessionState<S>, message: unknown, literal: string | undefined): Pending<S> | undefined {
  if (!isJsonObject(message) || message.method !== undefined || !('result' in message || 'error' in message)) return undefined;
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? state.pending.answer(id, literal) : undefined;
}

/** With `strict`: the awaited request `message` tries to answer though no strict client would take it, and why. */
function invalidAnswer<S>(state: SessionState<S>, message: JsonObject, literal: string | undefined): InboundMessage<S> | undefined {
  const id = message.id;
  if (typeof message.method === 'string' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  const pending = state.pending.peek(id, literal);
  if (!pending || pending.answered) return undefined;
  const problem = answerProblem(pending.method, message);
  if (problem === undefined) return undefined;
  return { message, pending: state.pending.answer(id, literal)!, problem };
}

/** Settle and rewrite one parsed message. */
function one<S>(state: SessionState<S>, rewriter: Rewriter, message: unknown, log: Log, strict: boolean, literal: string | undefined): InboundMessage<S> | Promise<InboundMessage<S>> | undefined {
  if (!isJsonObject(message)) return undefined;
  const invalid = strict ? invalidAnswer(state, message, literal) : undefined;
  if (invalid) return invalid;
  const pending = answerOf(state, message, literal);
  if (!pending) return { message };
  const settled = state.settle(pending, message);
  if (settled.message) return { message, pending, replaced: settled.message };
  if (pending.expect.kind !== 'rewrite') return { message, pending };
  const out = rewriter.respond(pending.expect.request, { message }, log);
  return out instanceof Promise ? out.then((r) => fromRewritten(message, pending, r)) : fromRewritten(message, pending, out);
}

function fromRewritten<S>(message: JsonObject, pending: Pending<S>, r: Rewritten): InboundMessage<S> {
  if (r.kind === 'message') return { message, pending, replaced: r.message };
  if (r.kind === 'bytes') return { message, pending, replaced: r.bytes };
  return { message, pending };
}

/**
 * One message as JSON text. A message nested deeper than the stack can serialise (a rewrite the engine's
 * bounds should never produce) answers its request with an error instead: never a throw that would leave the
 * request unanswered.
 */
function stringify<S>(m: InboundMessage<S>, part: unknown): string {
  try {
    return JSON.stringify(part);
  } catch (err) {
    const id = m.message.id;
    const error = new RetrofitError('RETROFIT_ERR_INTERNAL', ['the rewritten message could not be serialised'], { cause: err });
    return JSON.stringify(error.toJsonRpc(typeof id === 'string' || typeof id === 'number' ? id : null));
  }
}

/** One message written again (a worker's bytes as they are), with its id as the upstream wrote it (`literal`, when inexact; see src/jsonrpc/id-literal.ts). */
function written<S>(m: InboundMessage<S>, literal: string | undefined): string | Buffer {
  const part = m.replaced ?? m.message;
  return putIdLiteral(Buffer.isBuffer(part) ? part : stringify(m, part), m.message.id, literal);
}

/** What to send for `messages` when any of them changed: each written again (see written). */
function serialize<S>(messages: readonly InboundMessage<S>[], batch: boolean, literals: readonly (string | undefined)[] | undefined): string | Buffer | undefined {
  if (!messages.some((m) => m.replaced !== undefined)) return undefined;
  if (!batch) return written(messages[0]!, literals?.[0]);
  const parts = messages.map((m, i) => {
    const w = written(m, literals?.[i]);
    return Buffer.isBuffer(w) ? w : Buffer.from(w, 'utf8');
  });
  // A worker's bytes stay bytes: the batch is joined around them (one place: src/pipeline/offload/splice.ts).
  return joinMessages(parts, true);
}

/**
 * `split`: each message of a batch (`all`, in the batch's order; undefined where an element is no object) with
 * its own JSON: cut from `original` when it did not change, else written again (InboundMessage.json).
 */
function withOwnJson<S>(all: readonly (InboundMessage<S> | undefined)[], original: string | Buffer | undefined, literals: readonly (string | undefined)[] | undefined): (InboundMessage<S> | undefined)[] {
  const spans = original === undefined ? undefined : elementSpans(original);
  const found = spans?.length === all.length ? spans : undefined;
  return all.map((m, i) => {
    if (!m) return m;
    if (m.replaced !== undefined) return { ...m, json: written(m, literals?.[i]) };
    const span = found?.[i];
    if (!span || original === undefined) return m;
    return { ...m, json: typeof original === 'string' ? original.slice(span[0], span[1]) : original.subarray(span[0], span[1]) };
  });
}

/**
 * `parsed` (already JSON.parse'd data, from `original` when the caller has it: ids are written from it, and with
 * `split` a batch's messages cut from it) through the session.
 */
export function inboundParsed<S>(state: SessionState<S>, rewriter: Rewriter, parsed: unknown, log: Log, options: InboundOptions = {}, original?: string | Buffer): Inbound<S> | Promise<Inbound<S>> {
  const batch = Array.isArray(parsed);
  const items = batch ? (parsed as unknown[]) : [parsed];
  const literals = responseIdLiterals(parsed, original);
  const strict = options.strict === true;
  const handled: (InboundMessage<S> | Promise<InboundMessage<S>> | undefined)[] = items.map((m, i) => one(state, rewriter, m, log, strict, literals?.[i]));
  const done = (settled: readonly (InboundMessage<S> | undefined)[]): Inbound<S> => {
    const all = batch && options.split === true ? withOwnJson(settled, original, literals) : settled;
    const messages = all.filter((m): m is InboundMessage<S> => m !== undefined);
    // Something that is not an object in a batch cannot be rewritten: the batch goes as it came.
    if (messages.length !== items.length) return { messages, batch };
    const out = serialize(messages, batch, literals);
    return out === undefined ? { messages, batch } : { out, messages, batch };
  };
  return handled.some((h) => h instanceof Promise) ? Promise.all(handled).then(done) : done(handled as (InboundMessage<S> | undefined)[]);
}

/**
 * Raw data from the upstream (a JSON body, an SSE event's data, a stdio line) through the session. Nothing
 * is parsed while the session waits for nothing, unless `always`.
 */
export function inbound<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer | string, log: Log, options: InboundOptions = {}): Inbound<S> | Promise<Inbound<S>> {
  if (!options.always) {
    if (state.pending.empty) return UNPARSED;
    // Only tools without a configured schema await answers: a message without structuredContent cannot change.
    if (state.pending.onlyNative && !data.includes(STRUCTURED)) return UNPARSED;
  }
  const threshold = rewriter.rawThreshold;
  if (threshold !== undefined && data.length > threshold) {
    const id = sniffResponseId(endsOf(data));
    const literal = responseIdLiteral(id, data);
    const pending = id === undefined ? undefined : state.pending.peek(id, literal);
    // A tool without a configured schema: its answer changes only when it holds structuredContent, which the
    // worker's reading tells (readOnWorker).
    const unread = Buffer.isBuffer(data) && pending?.expect.kind === 'rewrite' && pending.expect.nativeOnly === true;
    if (id !== undefined && pending?.expect.kind === 'rewrite' && !unread) {
      const out = rewriter.respond(pending.expect.request, { raw: data, id }, log);
      const finish = (r: Rewritten): Inbound<S> | Promise<Inbound<S>> => fromRewrittenBytes(state, rewriter, data, { id, literal, pending }, r, log, options);
      return out instanceof Promise ? out.then(finish) : finish(out);
    }
    const read = Buffer.isBuffer(data) ? readOnWorker(state, rewriter, data, log, options) : undefined;
    if (read) return read;
  }
  return parseAndGo(state, rewriter, data, log, options);
}

/** The awaited answer a large message was found to be, before it was read here. */
interface Awaited<S> {
  readonly id: string | number;
  readonly literal: string | undefined;
  readonly pending: Pending<S>;
}

/**
 * What the pipeline made of a large answer it read from its bytes (on a worker, mostly) → the session's
 * bookkeeping, on the original or the worker's stub of it (which only a valid response gets: the worker hands
 * back any other as a mismatch, and it is parsed here).
 */
function fromRewrittenBytes<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer | string, awaited: Awaited<S>, r: Rewritten, log: Log, options: InboundOptions): Inbound<S> | Promise<Inbound<S>> {
  if (r.kind === 'mismatch') return r.parsed === undefined ? parseAndGo(state, rewriter, data, log, options) : inboundParsed(state, rewriter, r.parsed, log, options, data);
  const { id, literal } = awaited;
  const strict = options.strict === true;
  const answered = state.pending.answer(id, literal) ?? (strict ? undefined : awaited.pending);
  // Strict: answered meanwhile (past its deadline, say) — nobody waits for it any more.
  if (!answered) return { messages: [{ message: r.original }], batch: false };
  const problem = strict ? responseProblem(r.original) : undefined;
  if (problem !== undefined) return { messages: [{ message: r.original, pending: answered, problem }], batch: false };
  state.settle(answered, r.original);
  const replaced = r.kind === 'message' ? r.message : r.kind === 'bytes' ? r.bytes : undefined;
  const message: InboundMessage<S> = { message: r.original, pending: answered, ...(replaced !== undefined && { replaced }) };
  const json = serialize([message], false, [literal]);
  return json === undefined ? { messages: [message], batch: false } : { out: json, messages: [message], batch: false };
}

/**
 * A large message (bytes) nothing rewrites, as far as its ends tell — a passthrough tool's answer, a
 * notification, a server→client request —, read on the worker (src/pipeline/offload/inspect.ts): the session
 * decides by its stubs, and the bytes go on as they came (with `split`, each message of a batch as its own bytes,
 * which the worker found: InspectedMessage.span). Undefined when no worker can take it (the caller
 * parses it). Parsed here after all when the worker's reading shows a message the session must read whole: an
 * initialize's answer (negotiated), or one to rewrite whose id was not at its ends.
 */
function readOnWorker<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer, log: Log, options: InboundOptions): Promise<Inbound<S>> | undefined {
  const job = rewriter.inspect(data, log);
  if (!job) return undefined;
  log.debug({ bytes: data.length }, 'a large message read on a worker');
  return job.then(
    (inspected) => fromInspected(state, rewriter, data, inspected, log, options),
    (err: unknown) => {
      log.warn({ err, bytes: data.length }, 'reading a large message on the worker failed; parsed on the event loop');
      return parseAndGo(state, rewriter, data, log, options);
    },
  );
}

function fromInspected<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer, inspected: Inspected, log: Log, options: InboundOptions): Inbound<S> | Promise<Inbound<S>> {
  if (inspected.kind === 'invalid') return { messages: [], batch: false, invalid: true };
  const strict = options.strict === true;
  // A batch's messages routed apart go as their own bytes: one the worker could not place is read here whole.
  const split = inspected.kind === 'messages' && inspected.batch && options.split === true;
  const unplaced = (m: InspectedMessage): boolean => split && m.stub !== undefined && m.span === undefined;
  // Too deep: whoever passed the bytes checked them first (owned sessions, the HTTP relays), so not reached.
  if (inspected.kind === 'deep' || inspected.messages.some((m) => unplaced(m) || mustRead(state, rewriter, m, inspected.batch, strict))) {
    const projected = inspected.kind === 'messages' && !inspected.batch ? projectOnWorker(state, rewriter, data, inspected.messages[0]!, log, options) : undefined;
    if (projected) return projected;
    log.debug({ bytes: data.length }, 'a large message read on a worker must be read whole: parsed on the event loop');
    return parseAndGo(state, rewriter, data, log, options);
  }
  const messages: InboundMessage<S>[] = [];
  for (const m of inspected.messages) {
    if (!m.stub) continue;
    const one = stubbed(state, m.stub, m, strict);
    if (one.pending?.expect.kind === 'rewrite' && one.problem === undefined) {
      // What the session learns of an answer (a task it created) is in the stub.
      state.settle(one.pending, m.stub);
      rewriter.passedUnread(one.pending.expect.request, data, m.stub.result ?? null);
    }
    messages.push(split && m.span ? { ...one, json: data.subarray(m.span[0], m.span[1]) } : one);
  }
  return { messages, batch: inspected.batch };
}

/**
 * The message must be read whole, on this thread: it answers an initialize (negotiated), or a request whose
 * answer the pipeline may change (rewriter.leavesUnread), or one in a batch (recorded apart). An answer a
 * strict client would drop is not read: it becomes an error.
 */
function mustRead<S>(state: SessionState<S>, rewriter: Rewriter, m: InspectedMessage, batch: boolean, strict: boolean): boolean {
  const stub = m.stub;
  const id = stub?.id;
  if (stub === undefined || typeof stub.method === 'string' || (typeof id !== 'string' && typeof id !== 'number')) return false;
  const pending = state.pending.peek(id, m.literal);
  if (pending === undefined || (strict && m.problem !== undefined && !pending.answered)) return false;
  const expect = pending.expect;
  if (expect.kind === 'initialize') return true;
  return expect.kind === 'rewrite' && (batch || !rewriter.leavesUnread(expect.request, stub.result ?? null));
}

/**
 * An answer to a tool without a configured schema whose own structuredContent must change for the client:
 * projected on the worker too (rewriter.projectNative). Undefined for anything else, or when no worker takes it.
 */
function projectOnWorker<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer, m: InspectedMessage, log: Log, options: InboundOptions): Promise<Inbound<S>> | undefined {
  const id = m.stub?.id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const pending = state.pending.peek(id, m.literal);
  if (pending?.expect.kind !== 'rewrite' || pending.expect.nativeOnly !== true) return undefined;
  const job = rewriter.projectNative(pending.expect.request, data, id, log);
  return job?.then((r) => fromRewrittenBytes(state, rewriter, data, { id, literal: m.literal, pending }, r, log, options));
}

/**
 * one() on a worker's stub of a message that needs nothing settled or rewritten (see mustRead): an answer to
 * an awaited request is taken off the table, or, with `strict`, marked with what a strict client finds wrong.
 */
function stubbed<S>(state: SessionState<S>, message: JsonObject, m: InspectedMessage, strict: boolean): InboundMessage<S> {
  const id = message.id;
  if (strict && m.problem !== undefined && (typeof id === 'string' || typeof id === 'number')) {
    const pending = state.pending.peek(id, m.literal);
    if (pending && !pending.answered) return { message, pending: state.pending.answer(id, m.literal)!, problem: m.problem };
  }
  const pending = answerOf(state, message, m.literal);
  return pending ? { message, pending } : { message };
}

function parseAndGo<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer | string, log: Log, options: InboundOptions): Inbound<S> | Promise<Inbound<S>> {
  const text = typeof data === 'string' ? data : data.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { messages: [], batch: false, invalid: true };
  }
  return inboundParsed(state, rewriter, parsed, log, options, text);
}
