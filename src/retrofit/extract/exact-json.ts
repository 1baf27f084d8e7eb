/**
 * JSON text parsed without changing any number. JSON.parse turns 9007199254740993 into 9007199254740992;
 * a structuredContent that disagrees with its own text is worse than none. The text is parsed as usual
 * first (most texts tried are not JSON and fail there); then a look at the few places that can hold a
 * literal a double cannot represent (16+ digit runs, three-digit exponents; see src/exact-number.ts and src/json-literals.ts) decides
 * whether anything must change. Only when one is found does a linear, string-aware pass quote every such
 * literal outside strings, and the quoted text is parsed again: the value keeps the literal's exact text as a
 * string, valid where the schema allows a string, and otherwise a failure whose reason says why. Both parses
 * are the same prototype-safe parser.
 */
import type { Json } from '../../json.js';
import { anyInexactToken, continuesToken, isInexactToken } from '../../json-literals.js';
import { parseJson } from '../safe-json.js';

/** A parse: the value and the inexact literals that were kept as strings (in text order). */
export type ExactParse = { readonly ok: true; readonly value: Json; readonly inexact: readonly string[] } | { readonly ok: false };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NONE: readonly string[] = [];

type Quoted = { readonly text: string; readonly inexact: readonly string[] };

/** `text` with every inexact number literal outside strings quoted, and those literals (see quoteAll). */
export function quoteInexactNumbers(text: string): Quoted {
  return anyInexactToken(text) ? quoteAll(text) : { text, inexact: NONE };
}

/**
 * The quoting pass: linear, one visit per character (a string's escapes are stepped over); a literal is
 * sliced and read only when isInexactToken's quick look says it may be inexact. A number is a whole token:
 * `1.e5`, `abc123` and `1+2` are left alone.
 */
function quoteAll(text: string): Quoted {
  let inexact: string[] | undefined;
  let parts: string[] | undefined;
  let copied = 0;
  let inString = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      continue;
    }
    if (!continuesToken(c)) continue;
    let end = i + 1;
    while (end < n && continuesToken(text.charCodeAt(end))) end++;
    if (isInexactToken(text, i, end)) {
      const literal = text.slice(i, end);
      (parts ??= []).push(text.slice(copied, i), `"${literal}"`);
      (inexact ??= []).push(literal);
      copied = end;
    }
    i = end - 1;
  }
  if (inexact === undefined || parts === undefined) return { text, inexact: NONE };
  parts.push(text.slice(copied));
  return { text: parts.join(''), inexact };
}

/** Strict, prototype-safe JSON parse that never changes a number (see the module comment). */
export function parseJsonExact(text: string): ExactParse {
  // Parse first: most texts tried are not JSON at all (prose before a fence, a non-JSON block) and fail at
  // once; quoting number tokens never turns invalid JSON valid or valid invalid, so only a parsed text is looked at.
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  if (!anyInexactToken(text)) return { ok: true, value: parsed.value, inexact: NONE };
  const quoted = quoteAll(text);
  const exact = parseJson(quoted.text);
  return exact.ok ? { ok: true, value: exact.value, inexact: quoted.inexact } : exact;
}

/**
 * The note a JSON reading of `text` carries when it kept number literals as strings: shown with the
 * validation failures, so "must be integer" comes with its cause. Undefined when there were none.
 */
export function inexactNote(text: string): string | undefined {
  const { inexact } = quoteInexactNumbers(text);
  if (inexact.length === 0) return undefined;
  const shown = inexact.slice(0, 3).map((n) => (n.length > 40 ? `${n.slice(0, 37)}...` : n));
  const more = inexact.length > 3 ? ` and ${inexact.length - 3} more` : '';
  return `the text holds ${shown.join(', ')}${more}: more digits than a JSON number holds exactly (integers beyond 2^53, decimals beyond 17 significant digits), so each is read as a string with its exact digits; the schema must allow a string there`;
}
