/**
 * String-aware bracket matching: the top-level `{...}` / `[...]` spans of a text, in one linear pass.
 * Outside brackets the text is prose and quotes mean nothing; inside, quotes open strings whose brackets do
 * not count. A mismatched closer abandons the current span; an unclosed opener swallows the rest of the text,
 * so truncated JSON never yields its inner pieces. Nesting deeper than MAX_NESTING yields nothing.
 */

/** Deepest bracket nesting scanned; a text nested deeper yields no spans at all. */
export const MAX_NESTING = 512;

/** A half-open range [start, end) of the text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const OPEN_SQ = 0x5b; // [
const CLOSE_SQ = 0x5d; // ]
const BACKSLASH = 0x5c;

/** Yielded (last) by `scanSpans` when the text nests deeper than MAX_NESTING: no span of it is trusted. */
export const TOO_DEEP = Symbol('too deep');

/**
 * The top-level bracketed spans of `text`, lazily, so a caller can stop early. `quotes` are the characters
 * that open strings inside brackets (`"` for JSON; `"'` for Python-ish text). Yields TOO_DEEP and stops when
 * the nesting exceeds MAX_NESTING; a caller must then distrust the spans it already received.
 */
export function* scanSpans(text: string, quotes = '"'): Generator<Span | typeof TOO_DEEP> {
  const quote1 = quotes.charCodeAt(0);
  const quote2 = quotes.length > 1 ? quotes.charCodeAt(1) : -1;
  const stack: number[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (stack.length > 0 && (c === quote1 || c === quote2)) {
      // A string inside brackets: jump to its closing quote (native indexOf, not a char loop — this scan
      // costs as much as the JSON parse otherwise). An unterminated string swallows the rest of the text.
      i = stringEnd(text, i);
      continue;
    }
    if (c === OPEN || c === OPEN_SQ) {
      if (stack.length === 0) start = i;
      // Deeper than any value the engine reads: no span of this text is trusted (and the scan stays cheap:
      // megabytes of `{` made the bracket stack, and this loop, take seconds).
      if (stack.length >= MAX_NESTING) {
        yield TOO_DEEP;
        return;
      }
      stack.push(c === OPEN ? CLOSE : CLOSE_SQ);
    } else if (c === CLOSE || c === CLOSE_SQ) {
      if (stack.length === 0) continue;
      if (stack[stack.length - 1] !== c) {
        stack.length = 0; // mismatched: not JSON; resume scanning as prose
        continue;
      }
      stack.pop();
      if (stack.length === 0) yield { start, end: i + 1 };
    }
  }
}

/** The top-level bracketed spans of `text` (at most `limit`); none at all when it nests too deep. */
export function topLevelSpans(text: string, quotes = '"', limit = Infinity): Span[] {
  const spans: Span[] = [];
  for (const span of scanSpans(text, quotes)) {
    if (span === TOO_DEEP) return [];
    spans.push(span);
    if (spans.length >= limit) break;
  }
  return spans;
}

/**
 * The index of the quote closing the string that opens at `open` (a quote not escaped by an odd run of
 * backslashes), or `text.length` when it never closes. Each backslash run is counted once: linear overall.
 */
function stringEnd(text: string, open: number): number {
  const quote = text[open]!;
  let from = open + 1;
  for (;;) {
    const close = text.indexOf(quote, from);
    if (close === -1) return text.length;
    let backslashes = 0;
    for (let k = close - 1; k > open && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return close;
    from = close + 1;
  }
}
