/**
 * One message (or batch) from an upstream, through the session: answers are matched to the requests that
 * await them, settled (negotiation, task memory) and, where they may change, rewritten by the pipeline.
 * Every transport calls this: the HTTP proxy per JSON body or SSE event, gateway-owned sessions per message
 * their link delivers. A large answer to a request that goes to a worker is not even parsed here: its id is
 * read from its ends and the worker parses it. Any other large message (bytes) is read on the worker too, and
 * the session decides by the stub of it the worker gives back (readOnWorker); a large batch's answers that must
 * change are rewritten on a worker from their own bytes, and the batch joined again around them
 * (./inbound-batch.ts). With `strict`, an answer to an awaited request that a strict client would drop
 * (src/jsonrpc/strict.ts) is taken off the table unsettled and unrewritten, marked with its problem for the
 * caller to answer with an error. With `split`, each message of a batch comes with its own JSON to send
 * (InboundMessage.json): never a stub, nor the message serialised again when it did not change.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import { elementSpans } from '../jsonrpc/batch-elements.js';
import { responseIdLiteral, responseIdLiterals } from '../jsonrpc/id-literal.js';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';
import { answerProblem } from '../jsonrpc/strict.js';
import type { Log } from '../log.js';
import type { Inspected, InspectedMessage } from '../pipeline/offload/inspect.js';
import { joinMessages } from '../pipeline/offload/splice.js';
import type { Rewriter, Rewritten } from '../pipeline/rewrite.js';
import type { LiteralTrail } from '../json-literals.js';
import { rewriteBatch, type Placed } from './inbound-batch.js';
import { answerOf, fromStub, inspectedProblem, literalTrails, settledFromBytes, trailsOnce, written, type Awaited, type Trails, type Inbound, type InboundMessage, type InboundOptions } from './inbound-message.js';
import { typeTwin, type Pending } from './pending.js';
import type { SessionState } from './state.js';

export type { Inbound, InboundMessage, InboundOptions } from './inbound-message.js';

const UNPARSED: Inbound<never> = Object.freeze({ messages: [], batch: false });
const STRUCTURED = '"structuredContent"';

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

/**
 * A response whose id names no request waiting here but differs from one's only in JSON type ("2" answering 2),
 * with that request's id: an upstream off the spec, whose answer the v1 SDK client would match anyway (by
 * Number(id)) and take unrewritten, failing a tool it was shown a schema for. Matched, it is rewritten and sent
 * under the id the client wrote. Undefined for any other message. Asked only when the exact id matched nothing.
 */
function retyped<S>(state: SessionState<S>, message: JsonObject, literal: string | undefined, log: Log): JsonObject | undefined {
  const id = message.id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (message.method !== undefined || state.pending.peek(id, literal) !== undefined) return undefined;
  const twin = typeTwin(id);
  const pending = twin === undefined ? undefined : state.pending.peek(twin);
  if (!pending) return undefined;
  log.warn({ id, requestId: pending.id }, 'upstream answered with the request id in another JSON type; answered under the id the client sent');
  return { ...message, id: pending.id };
}

/** The inexact number literals of a parsed message's text, asked for only by a worker's retrofit (RewriteInput). */
type Literals = () => LiteralTrail | undefined;

/** Settle and rewrite one parsed message. */
function one<S>(state: SessionState<S>, rewriter: Rewriter, parsed: unknown, log: Log, strict: boolean, literal: string | undefined, literals: Literals): InboundMessage<S> | Promise<InboundMessage<S>> | undefined {
  if (!isJsonObject(parsed)) return undefined;
  const exact = settleOne(state, rewriter, parsed, log, strict, literal, literals);
  // An answer to one of ours (the usual case) costs nothing more; a stranger is looked at for its type twin.
  if (exact instanceof Promise || exact.pending !== undefined) return exact;
  const retype = retyped(state, parsed, literal, log);
  if (retype === undefined) return exact;
  // Written again even when nothing else changes: its id is the client's now.
  const out = settleOne(state, rewriter, retype, log, strict, literal, literals);
  const resend = (m: InboundMessage<S>): InboundMessage<S> => (m.replaced === undefined ? { ...m, replaced: m.message } : m);
  return out instanceof Promise ? out.then(resend) : resend(out);
}

function settleOne<S>(state: SessionState<S>, rewriter: Rewriter, message: JsonObject, log: Log, strict: boolean, literal: string | undefined, literals: Literals): InboundMessage<S> | Promise<InboundMessage<S>> {
  const invalid = strict ? invalidAnswer(state, message, literal) : undefined;
  if (invalid) return invalid;
  const pending = answerOf(state, message, literal);
  if (!pending) return { message };
  const settled = state.settle(pending, message);
  if (settled.message) return { message, pending, replaced: settled.message };
  if (pending.expect.kind !== 'rewrite') return { message, pending };
  const out = rewriter.respond(pending.expect.request, { message, literals }, log);
  return out instanceof Promise ? out.then((r) => fromRewritten(message, pending, r)) : fromRewritten(message, pending, out);
}

function fromRewritten<S>(message: JsonObject, pending: Pending<S>, r: Rewritten): InboundMessage<S> {
  if (r.kind === 'message') return { message, pending, replaced: r.message };
  if (r.kind === 'bytes') return { message, pending, replaced: r.bytes };
  return { message, pending };
}

/**
 * What to send for `messages` (parsed from `original`, when the caller has it) when any of them changed: each
 * written again (see written).
 */
function serialize<S>(messages: readonly InboundMessage<S>[], batch: boolean, literals: readonly (string | undefined)[] | undefined, allTrails: Trails): string | Buffer | undefined {
  if (!messages.some((m) => m.replaced !== undefined)) return undefined;
  const trails = literalTrails(messages, allTrails);
  if (!batch) return written(messages[0]!, literals?.[0], trails?.[0]);
  const parts = messages.map((m, i) => {
    const w = written(m, literals?.[i], trails?.[i]);
    return Buffer.isBuffer(w) ? w : Buffer.from(w, 'utf8');
  });
  // A worker's bytes stay bytes: the batch is joined around them (one place: src/pipeline/offload/splice.ts).
  return joinMessages(parts, true);
}

/**
 * `split`: each message of a batch (`all`, in the batch's order; undefined where an element is no object) with
 * its own JSON: cut from `original` when it did not change, else written again (InboundMessage.json).
 */
function withOwnJson<S>(all: readonly (InboundMessage<S> | undefined)[], original: string | Buffer | undefined, literals: readonly (string | undefined)[] | undefined, allTrails: Trails): (InboundMessage<S> | undefined)[] {
  const spans = original === undefined ? undefined : elementSpans(original);
  const found = spans?.length === all.length ? spans : undefined;
  const trails = literalTrails(all, allTrails);
  return all.map((m, i) => {
    if (!m) return m;
    if (m.replaced !== undefined) return { ...m, json: written(m, literals?.[i], trails?.[i]) };
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
  // Found once for the worker's retrofits (trailAt) and the writing of what changed alike.
  const trails = trailsOnce(batch, items.length, original);
  const trailAt = (i: number) => (): LiteralTrail | undefined => trails()?.[i];
  const handled: (InboundMessage<S> | Promise<InboundMessage<S>> | undefined)[] = items.map((m, i) => one(state, rewriter, m, log, strict, literals?.[i], trailAt(i)));
  const done = (settled: readonly (InboundMessage<S> | undefined)[]): Inbound<S> => {
    const all = batch && options.split === true ? withOwnJson(settled, original, literals, trails) : settled;
    const messages = all.filter((m): m is InboundMessage<S> => m !== undefined);
    // Something that is not an object in a batch cannot be rewritten: the batch goes as it came.
    if (messages.length !== items.length) return { messages, batch };
    const out = serialize(messages, batch, literals, trails);
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

/**
 * What the pipeline made of a large answer it read from its bytes (on a worker, mostly) → the session's
 * bookkeeping (settledFromBytes), on the original or the worker's stub of it (which only a valid response gets:
 * the worker hands back any other as a mismatch, and it is parsed here).
 */
function fromRewrittenBytes<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer | string, awaited: Awaited<S>, r: Rewritten, log: Log, options: InboundOptions): Inbound<S> | Promise<Inbound<S>> {
  if (r.kind === 'mismatch') return r.parsed === undefined ? parseAndGo(state, rewriter, data, log, options) : inboundParsed(state, rewriter, r.parsed, log, options, data);
  const message = settledFromBytes(state, awaited, r, options.strict === true);
  const json = serialize([message], false, [awaited.literal], trailsOnce(false, 1, data));
  return json === undefined ? { messages: [message], batch: false } : { out: json, messages: [message], batch: false };
}

/**
 * A large message (bytes) nothing rewrites, as far as its ends tell — a passthrough tool's answer, a
 * notification, a server→client request, a batch —, read on the worker (src/pipeline/offload/inspect.ts): the
 * session decides by its stubs, and the bytes go on as they came (with `split`, each message of a batch as its
 * own bytes, which the worker found: InspectedMessage.span). Undefined when no worker can take it (the caller
 * parses it). What the worker's reading shows must change goes to a worker again (see readingOf); parsed here
 * after all: an initialize's answer (negotiated), or a batch's message the worker could not place.
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
  // Too deep: whoever passed the bytes checked them first (owned sessions, the HTTP relays), so not reached.
  if (inspected.kind === 'deep') return readWhole(state, rewriter, data, log, options);
  const { batch, messages } = inspected;
  const readings = messages.map((m) => readingOf(state, rewriter, m, batch, options));
  if (readings.includes('whole')) return readWhole(state, rewriter, data, log, options);
  const rewrite = readings.flatMap((r, i): [number, Awaited<S>][] => (r === 'stub' || r === 'whole' ? [] : [[i, r]]));
  if (rewrite.length === 0) return unread(state, rewriter, data, inspected, options);
  if (!batch) return projectOnWorker(state, rewriter, data, messages[0]!, log, options) ?? readWhole(state, rewriter, data, log, options);
  // Each answer to rewrite handed over as its own bytes. A batch with an element that is no object goes as it
  // came, as the parsed path leaves it (inboundParsed): read whole.
  const placed = messages.filter((m): m is Placed => m.stub !== undefined && m.span !== undefined);
  if (placed.length !== messages.length) return readWhole(state, rewriter, data, log, options);
  return rewriteBatch(state, rewriter, data, placed, new Map(rewrite), log, options).then((handled) => handled ?? readWhole(state, rewriter, data, log, options));
}

/** The inspected messages, none of which changes, by their stubs: the bytes go on as they came. */
function unread<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer, inspected: Inspected & { readonly kind: 'messages' }, options: InboundOptions): Inbound<S> {
  const split = inspected.batch && options.split === true;
  const messages: InboundMessage<S>[] = [];
  for (const m of inspected.messages) {
    if (!m.stub) continue;
    const own = m.span ? data.subarray(m.span[0], m.span[1]) : data;
    const one = fromStub(state, rewriter, { ...m, stub: m.stub }, own, options.strict === true);
    messages.push(split && m.span ? { ...one, json: own } : one);
  }
  return { messages, batch: inspected.batch };
}

/** The data parsed here after all (said in a debug line: the worker's reading could not settle it). */
function readWhole<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer, log: Log, options: InboundOptions): Inbound<S> | Promise<Inbound<S>> {
  log.debug({ bytes: data.length }, 'a large message read on a worker must be read whole: parsed on the event loop');
  return parseAndGo(state, rewriter, data, log, options);
}

/**
 * How the session reads one message the worker inspected: by its stub (`stub`); whole, here (`whole`: an
 * initialize's answer, which is negotiated; a message of a batch the worker could not place, which `split` or a
 * rewrite needs as its own bytes); or, when the pipeline may change it (rewriter.leavesUnread), as the awaited
 * answer it is, rewritten from its bytes on a worker. An answer a strict client would drop is not read: it
 * becomes an error.
 */
function readingOf<S>(state: SessionState<S>, rewriter: Rewriter, m: InspectedMessage, batch: boolean, options: InboundOptions): 'stub' | 'whole' | Awaited<S> {
  const stub = m.stub;
  const unplaced = batch && m.span === undefined;
  if (stub === undefined) return 'stub';
  if (unplaced && options.split === true) return 'whole';
  const id = stub.id;
  if (typeof stub.method === 'string' || (typeof id !== 'string' && typeof id !== 'number')) return 'stub';
  const pending = state.pending.peek(id, m.literal);
  if (pending === undefined || (options.strict === true && !pending.answered && inspectedProblem(m, pending.method) !== undefined)) return 'stub';
  const expect = pending.expect;
  if (expect.kind === 'initialize') return 'whole';
  if (expect.kind !== 'rewrite') return 'stub';
  // Recorded, and rewritten, from its own bytes.
  if (unplaced) return 'whole';
  return rewriter.leavesUnread(expect.request, stub.result ?? null) ? 'stub' : { id, literal: m.literal, pending };
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
