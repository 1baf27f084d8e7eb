/**
 * The JSON-RPC id of a response without parsing it: for messages too large to parse on the event loop (they
 * go to a worker unparsed) or too large to keep at all (over maxResultBytes: the request still needs its
 * error). Serialisers put `id` either first (after `jsonrpc`) or last (the SDKs emit
 * `{"result":…,"jsonrpc":"2.0","id":1}`), so the first and last bytes are enough. A message whose ends show a
 * top-level `method` (or `params`) is a request or a notification wherever its id sits, never an answer: an
 * over-long server→client request that carries the id of a pending client request must not fail that request.
 */
import { headMembers, tailMembers } from './end-members.js';

/** Bounded samples of both ends of a message, decoded as UTF-8. */
export interface MessageEnds {
  readonly head: string;
  readonly tail: string;
}

/** How many bytes of each end are worth looking at. */
export const SNIFF_BYTES = 512;

/** Both ends of `data`, SNIFF_BYTES each. */
export function endsOf(data: Buffer | string): MessageEnds {
  const n = SNIFF_BYTES;
  if (typeof data === 'string') return { head: data.slice(0, n), tail: data.slice(-n) };
  return { head: data.subarray(0, n).toString('utf8'), tail: data.subarray(-n).toString('utf8') };
}

/** The start of a message for a log line: `n` characters of text, or `n` bytes of bytes decoded (never the whole). */
export function textHead(data: Buffer | string, n = 200): string {
  return typeof data === 'string' ? data.slice(0, n) : data.toString('utf8', 0, Math.min(n, data.length));
}

const ID = String.raw`(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")`;
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`, 'd');
const TAIL_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`, 'd');

/** Top-level members a request or notification has and an answer never has. */
const REQUEST_MEMBERS: ReadonlySet<string> = new Set(['method', 'params']);
const isRequestMember = (name: string): boolean => REQUEST_MEMBERS.has(name);
const isAnswerMember = (name: string): boolean => name === 'result' || name === 'error';

/**
 * Whether the text can name a request member at all (a name spelt with `\u` escapes included): most messages
 * sniffed are answers whose ends do not, and are not read member by member (in share mode every line is sniffed).
 */
const mentionsRequest = (text: string): boolean => text.includes('"method"') || text.includes('"params"') || text.includes('\\u');

/** True when either end shows a top-level member only requests and notifications have. */
function showsRequest(head: string, tail: string): boolean {
  return (mentionsRequest(head) && headMembers(head).some(isRequestMember)) || (mentionsRequest(tail) && tailMembers(tail).some(isRequestMember));
}

/** A response id found in the text: its JSON literal and where that literal sits in the text searched. */
export interface IdLocation {
  readonly literal: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Where a response's id is written, at the head of `data` or else at its tail (offsets into `data`: characters of
 * a string, bytes of a Buffer); undefined when an end shows a `method` or no id sits at either end.
 * Only SNIFF_BYTES of each end are read. A Buffer's ends are read as latin1, one character per byte: JSON's
 * structure and a number are ASCII, and no byte of a multi-byte UTF-8 character is a quote or a backslash.
 */
export function locateResponseId(data: string | Buffer): IdLocation | undefined {
  const text = typeof data === 'string';
  const head = text ? data.slice(0, SNIFF_BYTES) : data.subarray(0, SNIFF_BYTES).toString('latin1');
  const offset = Math.max(0, data.length - SNIFF_BYTES);
  const tailText = text ? data.slice(offset) : data.subarray(offset).toString('latin1');
  if (showsRequest(head, tailText)) return undefined;
  const found = HEAD_ID.exec(head);
  if (found?.indices?.[1]) return { literal: found[1]!, start: found.indices[1][0], end: found.indices[1][1] };
  const tail = TAIL_ID.exec(tailText);
  if (tail?.indices?.[1]) return { literal: tail[1]!, start: offset + tail.indices[1][0], end: offset + tail.indices[1][1] };
  return undefined;
}

/**
 * Best-effort id of a response; undefined when the message shows it is a request or notification (a
 * top-level `method` or `params` at either end) or no id is found. A message that is parsed after all is
 * checked again; one that is not (an over-long line, dropped) fails the request whose id this names.
 */
export function sniffResponseId(ends: MessageEnds): string | number | undefined {
  const match = HEAD_ID.exec(ends.head) ?? TAIL_ID.exec(ends.tail);
  if (!match || showsRequest(ends.head, ends.tail)) return undefined;
  return idOf(match[1]);
}

function idOf(raw: string | undefined): string | number | undefined {
  if (raw === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** What the head of a message shows: a request or notification (a top-level `method` or `params`), a response's id, or nothing yet. */
export type HeadSniff = { readonly kind: 'method' } | { readonly kind: 'id'; readonly id: string | number } | undefined;

/**
 * What the first bytes of a message say about it, before the rest arrives: a relay that must decide whether
 * to hold a message (it may be an answer to rewrite) or forward it as it comes reads this.
 */
export function sniffHead(head: string): HeadSniff {
  return sniffOf(head, mentionsRequest(head) ? headMembers(head) : []);
}

function sniffOf(head: string, members: readonly string[]): HeadSniff {
  if (members.some(isRequestMember)) return { kind: 'method' };
  const id = idOf(HEAD_ID.exec(head)?.[1]);
  return id === undefined ? undefined : { kind: 'id', id };
}

/**
 * True when the first bytes of a message already show the answer it is — its response id and a `result` or
 * `error` after it —: an over-long message can be reported (its request answered RETROFIT_ERR_RESULT_TOO_LARGE)
 * as it passes its bound, without waiting for an end the upstream may never write. A head with an id and no
 * result yet may still turn out a request (`method` last): it is reported at its end, as are the SDKs' answers,
 * which write the id last.
 */
export function headNamesAnswer(head: string): boolean {
  const members = headMembers(head);
  return members.some(isAnswerMember) && sniffOf(head, members)?.kind === 'id';
}
