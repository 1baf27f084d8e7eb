/**
 * Where each message of a batch lies in the batch's own text: a session that routes a batch's messages one by
 * one (src/session/owned.ts) sends each as the upstream wrote it, a worker that read a large batch
 * (src/pipeline/offload/inspect.ts) tells where, and each message of a client's batch goes upstream as the
 * client wrote it (messageTexts), so nobody serialises a message again that did not change.
 */
import type { ClassifiedBody } from './classify.js';
import { bytesStringEnd, stringEnd } from './json-strings.js';

/** [start, end) of one element in the data it was found in (UTF-16 units of text, or bytes). */
export type Span = readonly [start: number, end: number];

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const QUOTE = 0x22;
/** JSON's whitespace (space, tab, LF, CR) and nothing structural is at or below it. */
const SPACE = 0x20;

/**
 * The span of each element of the JSON array `data` (a batch that parsed), in order, without the whitespace
 * around it: one iterative pass that counts nesting and crosses each string with a native search for its
 * closing quote. Text or its UTF-8 bytes alike: brackets, braces, comma, quote and backslash are ASCII, and no
 * byte of a multi-byte character is. Undefined when `data` is not an array (or ends inside one).
 */
export function elementSpans(data: string | Uint8Array): Span[] | undefined {
  const at: (i: number) => number = typeof data === 'string' ? (i) => data.charCodeAt(i) : (i) => data[i] ?? -1;
  /** The closing quote of the string opened at `open`. */
  const closing: (open: number) => number = typeof data === 'string' ? (open) => stringEnd(data, open) : (open) => bytesStringEnd(data, open + 1);
  const n = data.length;
  let i = 0;
  while (i < n && at(i) <= SPACE) i++;
  if (at(i) !== OPEN_ARRAY) return undefined;
  const spans: Span[] = [];
  let depth = 0;
  let start = i + 1;
  for (i += 1; i < n; i++) {
    const c = at(i);
    if (c === QUOTE) {
      i = closing(i);
      if (i < 0) return undefined;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (depth > 0 && (c === CLOSE_ARRAY || c === CLOSE_OBJECT)) depth--;
    else if (depth === 0 && (c === COMMA || c === CLOSE_ARRAY)) {
      let s = start;
      let e = i;
      while (s < e && at(s) <= SPACE) s++;
      while (e > s && at(e - 1) <= SPACE) e--;
      if (e > s) spans.push([s, e]);
      if (c === CLOSE_ARRAY) return spans;
      start = i + 1;
    }
  }
  return undefined;
}

/** The text of each element of the JSON array `text`, in order (elementSpans); undefined when it is not an array. */
export function arrayElements(text: string): string[] | undefined {
  return elementSpans(text)?.map(([s, e]) => text.slice(s, e));
}

/**
 * The text of each of `body`'s messages as `text` (the body they were parsed from) holds it: a batch's elements,
 * one message's whole text. Exact (a number literal a double cannot hold stays as written) and cheaper than
 * writing each message again; only a batch that cannot be split (never one that parsed) is written again.
 */
export function messageTexts(text: string, body: ClassifiedBody): readonly string[] {
  if (!body.batch) return [text];
  const elements = arrayElements(text);
  return elements?.length === body.messages.length ? elements : body.messages.map((m) => JSON.stringify(m.message));
}
