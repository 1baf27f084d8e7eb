/**
 * Keeping a response's id as the upstream wrote it when the gateway serialises the response again. JSON.parse
 * reads an integer id past 2^53 as the nearest double (12345678901234567890 becomes 12345678901234567000), and a
 * client that sent the exact integer (a 64-bit id from a Go, Rust or Python client) could never match an
 * answer written from the parsed value. Every rewritten answer, alone or in a batch, whoever serialised it (this
 * thread or a worker), is written through `putIdLiteral` with the upstream's literal (`responseIdLiterals`), and
 * every error the gateway answers a proxied request with through `errorAnswer` (the request's literal, read once
 * by `withIdLiterals`): this file is where ids are kept exact. The same literals tell apart two requests in
 * flight whose ids read as the same double (src/session/pending.ts).
 */
import type { RetrofitError } from '../errors.js';
import type { ClassifiedBody, JsonRpcId } from './classify.js';
import { arrayElements } from './batch-elements.js';
import { locateResponseId } from './sniff.js';

/**
 * An id whose literal JSON.parse may not give back: a number that is not a safe integer (past 2^53, or with a
 * fraction: `0.10000000000000001` reads as 0.1). Strings and safe integers always read back as written.
 */
export function inexactId(id: unknown): boolean {
  return typeof id === 'number' && !Number.isSafeInteger(id);
}

/**
 * The literal of response id `id` in `original` (the response as received), when `id` is inexact and its
 * literal sits at an end of the message (as every serialiser writes it) and reads as `id`.
 */
export function responseIdLiteral(id: unknown, original: string | Buffer | undefined): string | undefined {
  if (original === undefined || !inexactId(id)) return undefined;
  const literal = locateResponseId(original)?.literal;
  return literal !== undefined && Number(literal) === id ? literal : undefined;
}

/**
 * The id literal of each message of parsed response data (`parsed`, from `original`), in order, for the
 * pending table's lookups and for writing a rewritten answer's id back; undefined when no id is inexact (the
 * usual case, one check per message). A batch's own text is split into its elements for it.
 */
export function responseIdLiterals(parsed: unknown, original: string | Buffer | undefined): (string | undefined)[] | undefined {
  return original === undefined ? undefined : literalsOf(parsed, original, responseIdLiteral);
}

/**
 * `read`'s literal for each message of `parsed` (from `text`) whose id is inexact, in order; undefined when
 * none is (one check per message), or when a batch's text cannot be split into its elements (bytes are not).
 */
function literalsOf(parsed: unknown, text: string | Buffer, read: (id: number, text: string | Buffer) => string | undefined): (string | undefined)[] | undefined {
  if (!Array.isArray(parsed)) {
    const id = idOf(parsed);
    return inexactId(id) ? [read(id as number, text)] : undefined;
  }
  if (!parsed.some((m) => inexactId(idOf(m)))) return undefined;
  const elements = typeof text === 'string' ? arrayElements(text) : undefined;
  if (elements?.length !== parsed.length) return undefined;
  return parsed.map((m, i) => {
    const id = idOf(m);
    return inexactId(id) ? read(id as number, elements[i]!) : undefined;
  });
}

/**
 * `out` (a response written from its parsed form, whose parsed id is `id`) with `literal` (that id as written:
 * by the upstream, for an answer rewritten; by the client, for the gateway's own error) in place of the id
 * JSON.stringify wrote, when `id` is inexact and `literal` reads as `id`.
 */
export function putIdLiteral<T extends string | Buffer>(out: T, id: unknown, literal: string | undefined): T {
  if (literal === undefined || !inexactId(id)) return out;
  const now = locateResponseId(out);
  if (!now || now.literal === literal || JSON.parse(literal) !== id || JSON.parse(now.literal) !== id) return out;
  if (typeof out === 'string') return `${out.slice(0, now.start)}${literal}${out.slice(now.end)}` as T;
  return Buffer.concat([out.subarray(0, now.start), Buffer.from(literal, 'latin1'), out.subarray(now.end)]) as T;
}

/**
 * `error` as the JSON-RPC answer to request `id`, as JSON text, its id written as `idLiteral` (the request's id
 * as the client wrote it: ClassifiedMessage.idLiteral) when JSON.parse could not read that id back exactly.
 */
export function errorAnswer(error: RetrofitError, id: JsonRpcId, idLiteral?: string): string {
  const json = JSON.stringify(error.toJsonRpc(id));
  return idLiteral === undefined ? json : putIdLiteral(json, id, idLiteral);
}

function idOf(m: unknown): unknown {
  return m !== null && typeof m === 'object' ? (m as { id?: unknown }).id : undefined;
}

/** An `"id"` key and its number literal (a key inside a string is escaped, `\"id\"`, and never matches). */
const ID_NUMBER = /"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/** The one literal in `text` that an `"id"` key holds and that reads as `id`; undefined when none is, or several differ. */
function literalOf(id: number, text: string): string | undefined {
  let found: string | undefined;
  for (const m of text.matchAll(ID_NUMBER)) {
    const literal = m[1]!;
    if (Number(literal) !== id || literal === found) continue;
    if (found !== undefined) return undefined;
    found = literal;
  }
  return found;
}

/**
 * The id literal of each message of a request body (`text`, parsed as `parsed`), in order; undefined for a
 * message whose id reads back as written, or whose literal cannot be told apart (a nested `"id"` spelled
 * differently that reads as the same double); undefined as a whole when no id is inexact. Linear
 * regular-expression scans, bounded by the body's limit (JSON.parse's source-text reviver would be exact, but
 * costs ten times a parse).
 */
export function requestIdLiterals(text: string, parsed: unknown): (string | undefined)[] | undefined {
  return literalsOf(parsed, text, (id, element) => literalOf(id, element as string));
}

/** `body` with each message's `idLiteral` set where its id is inexact; `body` itself when none is (the usual case). */
export function withIdLiterals(body: ClassifiedBody, text: string, parsed: unknown): ClassifiedBody {
  if (!body.messages.some((m) => inexactId(m.id))) return body;
  const literals = requestIdLiterals(text, parsed);
  if (!literals) return body;
  return { ...body, messages: body.messages.map((m, i) => (literals[i] === undefined ? m : { ...m, idLiteral: literals[i] })) };
}
