/**
 * JSON text parsed without changing any number. JSON.parse turns 9007199254740993 into 9007199254740992;
 * a structuredContent that disagrees with its own text is worse than none. So, only when a cheap test says
 * the text may hold such a literal (16+ digit runs, long exponents), one linear pass quotes every number
 * literal a double cannot hold exactly (see exact-number.ts) and records it; the text is then parsed as
 * usual. The value keeps the literal's exact text as a string: valid where the schema allows a string,
 * and otherwise a failure whose reason says why. Parsing stays the same parser (same duplicate-key and
 * prototype handling) as the fast path.
 */
import type { Json } from '../../json.js';
import { isExactLiteral, mayHoldInexactNumbers } from '../exact-number.js';
import { parseJson } from '../safe-json.js';

/** A parse: the value and the inexact literals that were kept as strings (in text order). */
export type ExactParse = { readonly ok: true; readonly value: Json; readonly inexact: readonly string[] } | { readonly ok: false };

const NUMBER_AT = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NONE: readonly string[] = [];

function isNumberStart(c: number): boolean {
  return c === 0x2d || (c >= 0x30 && c <= 0x39);
}

/** A char that may continue a token: a literal followed by one is not a JSON number and is left alone. */
function continuesToken(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x5f;
}

/** The index just past the string opening at `open` (or the text's end when it never closes). */
function afterString(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const close = text.indexOf('"', from);
    if (close === -1) return text.length;
    let backslashes = 0;
    for (let k = close - 1; k > open && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return close + 1;
    from = close + 1;
  }
}

/** `text` with every inexact number literal outside strings quoted, and those literals. Linear. */
export function quoteInexactNumbers(text: string): { readonly text: string; readonly inexact: readonly string[] } {
  const inexact: string[] = [];
  const parts: string[] = [];
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = afterString(text, i);
      continue;
    }
    if (!isNumberStart(c) || (i > 0 && continuesToken(text.charCodeAt(i - 1)))) {
      i++;
      continue;
    }
    NUMBER_AT.lastIndex = i;
    const m = NUMBER_AT.exec(text);
    if (!m) {
      i++;
      continue;
    }
    const literal = m[0];
    const end = i + literal.length;
    if (end < text.length && continuesToken(text.charCodeAt(end))) {
      i = end;
      continue;
    }
    if (!isExactLiteral(literal, Number(literal))) {
      parts.push(text.slice(copied, i), `"${literal}"`);
      copied = end;
      inexact.push(literal);
    }
    i = end;
  }
  if (inexact.length === 0) return { text, inexact: NONE };
  parts.push(text.slice(copied));
  return { text: parts.join(''), inexact };
}

/** Strict, prototype-safe JSON parse that never changes a number (see the module comment). */
export function parseJsonExact(text: string): ExactParse {
  if (!mayHoldInexactNumbers(text)) {
    const parsed = parseJson(text);
    return parsed.ok ? { ok: true, value: parsed.value, inexact: NONE } : parsed;
  }
  const quoted = quoteInexactNumbers(text);
  const parsed = parseJson(quoted.text);
  return parsed.ok ? { ok: true, value: parsed.value, inexact: quoted.inexact } : parsed;
}

/**
 * The note a JSON reading of `text` carries when it kept number literals as strings: shown with the
 * validation failures, so "must be integer" comes with its cause. Undefined when there were none.
 */
export function inexactNote(text: string): string | undefined {
  if (!mayHoldInexactNumbers(text)) return undefined;
  const { inexact } = quoteInexactNumbers(text);
  if (inexact.length === 0) return undefined;
  const shown = inexact.slice(0, 3).map((n) => (n.length > 40 ? `${n.slice(0, 37)}...` : n));
  const more = inexact.length > 3 ? ` and ${inexact.length - 3} more` : '';
  return `the text holds ${shown.join(', ')}${more}: more digits than a JSON number holds exactly (integers beyond 2^53, decimals beyond 17 significant digits), so each is read as a string with its exact digits; the schema must allow a string there`;
}
