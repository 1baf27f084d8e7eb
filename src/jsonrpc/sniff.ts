/**
 * The JSON-RPC id of a response without parsing it: for messages too large to parse on the event loop (they
 * go to a worker unparsed) or too large to keep at all (over maxResultBytes: the request still needs its
 * error). Serialisers put `id` either first (after `jsonrpc`) or last (the SDKs emit
 * `{"result":…,"jsonrpc":"2.0","id":1}`), so the first and last bytes are enough.
 */

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
const LEADING_METHOD = /^\s*\{\s*(?:"[^"]*"\s*:\s*(?:"[^"]*"|-?\d+)\s*,\s*)*"method"\s*:/;

/** A response id found in the text: its JSON literal and where that literal sits in the text searched. */
export interface IdLocation {
  readonly literal: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Where a response's id is written, at the head of `data` or else at its tail (offsets into `data`: characters of
 * a string, bytes of a Buffer); undefined when the message leads with a `method` or no id sits at either end.
 * Only SNIFF_BYTES of each end are read. A Buffer's ends are read as latin1, one character per byte: JSON's
 * structure and a number are ASCII, and no byte of a multi-byte UTF-8 character is a quote or a backslash.
 */
export function locateResponseId(data: string | Buffer): IdLocation | undefined {
  const text = typeof data === 'string';
  const head = text ? data.slice(0, SNIFF_BYTES) : data.subarray(0, SNIFF_BYTES).toString('latin1');
  if (LEADING_METHOD.test(head)) return undefined;
  const found = HEAD_ID.exec(head);
  if (found?.indices?.[1]) return { literal: found[1]!, start: found.indices[1][0], end: found.indices[1][1] };
  const offset = Math.max(0, data.length - SNIFF_BYTES);
  const tail = TAIL_ID.exec(text ? data.slice(offset) : data.subarray(offset).toString('latin1'));
  if (tail?.indices?.[1]) return { literal: tail[1]!, start: offset + tail.indices[1][0], end: offset + tail.indices[1][1] };
  return undefined;
}

/**
 * Best-effort id of a response; undefined when the message looks like a request or notification (a `method`
 * up front) or no id is found. A wrong guess costs nothing: whoever acts on it checks the parsed message.
 */
export function sniffResponseId(ends: MessageEnds): string | number | undefined {
  if (LEADING_METHOD.test(ends.head)) return undefined;
  const match = HEAD_ID.exec(ends.head) ?? TAIL_ID.exec(ends.tail);
  return idOf(match?.[1]);
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

/** What the head of a message shows: a request or notification (a `method` up front), a response's id, or nothing yet. */
export type HeadSniff = { readonly kind: 'method' } | { readonly kind: 'id'; readonly id: string | number } | undefined;

/**
 * What the first bytes of a message say about it, before the rest arrives: a relay that must decide whether
 * to hold a message (it may be an answer to rewrite) or forward it as it comes reads this.
 */
export function sniffHead(head: string): HeadSniff {
  if (LEADING_METHOD.test(head)) return { kind: 'method' };
  const id = idOf(HEAD_ID.exec(head)?.[1]);
  return id === undefined ? undefined : { kind: 'id', id };
}

/**
 * True when the first bytes of a message already name the response id it carries: an over-long message can be
 * reported (its request answered RETROFIT_ERR_RESULT_TOO_LARGE) as it passes its bound, without waiting for an
 * end the upstream may never write. The SDKs write the id last: theirs are reported when they end.
 */
export function headNamesAnswer(head: string): boolean {
  return sniffHead(head)?.kind === 'id';
}
