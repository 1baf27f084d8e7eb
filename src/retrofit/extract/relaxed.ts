/**
 * `relaxed`: JSON as people and Python write it — single quotes, `True/False/None`, trailing commas,
 * comments, unquoted keys. Only a balanced bracketed text (the whole text, or its single bracketed span) is
 * read: jsonrepair would also "complete" truncated JSON, which must fail instead.
 *
 * A Python literal (what `repr()` / `print()` of a dict or list writes: quoted strings with Python's escapes,
 * `True/False/None`, numbers, brackets, commas, colons) is translated to JSON in one pass (pythonAsJson): its
 * escapes keep their meaning (`'\x1b[0m'` is ESC then `[0m`) and it costs a scan at any length. Anything else
 * (comments, unquoted keys, missing or trailing commas) is repaired by jsonrepair, whose repairs copy its output
 * so far (a text missing a comma between every two values costs time quadratic in its length): only texts of
 * at most REPAIR_MAX_CHARS are given to it.
 */
import { jsonrepair } from 'jsonrepair';
import type { Json } from '../../json.js';
import { parseJsonExact } from './exact-json.js';
import { topLevelSpans } from './spans.js';

/** Longest text jsonrepair is given (its worst case is then tens of milliseconds). */
export const REPAIR_MAX_CHARS = 32 * 1024;

// The first token inside the brackets must look like data, or jsonrepair turns prose such as
// "file [x] not found" into ["x"]: an object starts with a (possibly unquoted) key, an array with a value.
const OBJECT_START = /^\{\s*(?:\/[/*]|["'}]|[A-Za-z_$][\w$]*\s*:)/;
const ARRAY_START = /^\[\s*(?:\/[/*]|["'{[\]\-\d]|(?:true|false|null|True|False|None)\b)/;

function balancedBody(text: string): string | undefined {
  const spans = topLevelSpans(text, `"'`, 2);
  if (spans.length !== 1) return undefined;
  const span = spans[0]!;
  const body = text.slice(span.start, span.end);
  return (body.startsWith('{') ? OBJECT_START : ARRAY_START).test(body) ? body : undefined;
}

export function extractRelaxed(text: string): Json | undefined {
  const body = balancedBody(text);
  if (body === undefined) return undefined;
  const python = pythonAsJson(body);
  if (python !== undefined) {
    const parsed = parseJsonExact(python);
    if (parsed.ok) return asContainer(parsed.value);
  }
  if (body.length > REPAIR_MAX_CHARS) return undefined;
  let repaired: string;
  try {
    repaired = jsonrepair(body);
  } catch {
    return undefined;
  }
  const parsed = parseJsonExact(repaired);
  return parsed.ok ? asContainer(parsed.value) : undefined;
}

function asContainer(value: Json): Json | undefined {
  return typeof value === 'object' && value !== null ? value : undefined;
}

const PYTHON_WORDS: Readonly<Record<string, string>> = { True: 'true', False: 'false', None: 'null' };
/** Python's one-letter escapes, as JSON writes the same character. */
const PYTHON_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', "'": "'", '"': '\\"', n: '\\n', r: '\\r', t: '\\t', b: '\\b', f: '\\f', a: '\\u0007', v: '\\u000b' };
const HEX = /^[0-9a-fA-F]+$/;

const isWordChar = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || (c >= 0x30 && c <= 0x39);

/** `\uXXXX` for one UTF-16 unit. */
const unit = (code: number): string => `\\u${code.toString(16).padStart(4, '0')}`;

/**
 * `body` as JSON when it is a Python literal of dicts, lists, strings, numbers and True/False/None; undefined
 * when it holds anything else (then jsonrepair may read it). One pass; strings are quoted again with Python's
 * escapes written as JSON's (`\xNN`, `\uNNNN`, `\UNNNNNNNN`, octal `\NNN`, `\a`, `\v`; an unknown escape keeps
 * its backslash, as in Python). The JSON is parsed afterwards, which rejects what Python allows and JSON not
 * (tuples, sets, `inf`).
 */
export function pythonAsJson(body: string): string | undefined {
  let out = '';
  const n = body.length;
  for (let i = 0; i < n; ) {
    const c = body.charCodeAt(i);
    if (c === 0x27 || c === 0x22) {
      const end = pythonString(body, i);
      if (end === undefined) return undefined;
      out += end.json;
      i = end.next;
      continue;
    }
    if (isWordChar(c) && !(c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && isWordChar(body.charCodeAt(j))) j++;
      const word = PYTHON_WORDS[body.slice(i, j)];
      if (word === undefined) return undefined;
      out += word;
      i = j;
      continue;
    }
    // Numbers, brackets, commas, colons, white space: as they are (the parse judges them).
    let j = i + 1;
    while (j < n) {
      const d = body.charCodeAt(j);
      if (d === 0x27 || d === 0x22 || (isWordChar(d) && !(d >= 0x30 && d <= 0x39) && !isExponent(body, j))) break;
      j++;
    }
    out += body.slice(i, j);
    i = j;
  }
  return out;
}

/** `e`/`E` inside a number (`1e5`, `2.5E-3`), not the start of a word. */
function isExponent(body: string, at: number): boolean {
  const c = body.charCodeAt(at);
  if (c !== 0x65 && c !== 0x45) return false;
  const before = body.charCodeAt(at - 1);
  return before >= 0x30 && before <= 0x39;
}

/** The Python string literal opened at `start` as a JSON string, and where the text goes on; undefined if it does not close on its line. */
function pythonString(body: string, start: number): { json: string; next: number } | undefined {
  const quote = body.charCodeAt(start);
  let out = '"';
  let from = start + 1;
  for (let i = start + 1; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c === quote) return { json: `${out}${body.slice(from, i)}"`, next: i + 1 };
    if (c === 0x0a || c === 0x0d) return undefined;
    if (c === 0x22 || c < 0x20) {
      // A double quote inside a single-quoted string, a raw control character: escaped for JSON.
      out += `${body.slice(from, i)}${c === 0x22 ? '\\"' : unit(c)}`;
      from = i + 1;
      continue;
    }
    if (c !== 0x5c) continue;
    out += body.slice(from, i);
    const escape = pythonEscape(body, i);
    if (escape === undefined) return undefined;
    out += escape.json;
    i = escape.next - 1;
    from = escape.next;
  }
  return undefined;
}

/** The escape at `body[at]` (a backslash) as JSON, and where the string goes on. */
function pythonEscape(body: string, at: number): { json: string; next: number } | undefined {
  const letter = body[at + 1];
  if (letter === undefined) return undefined;
  const simple = PYTHON_ESCAPES[letter];
  if (simple !== undefined) return { json: simple, next: at + 2 };
  const digits = letter === 'x' ? 2 : letter === 'u' ? 4 : letter === 'U' ? 8 : 0;
  if (digits > 0) {
    const hex = body.slice(at + 2, at + 2 + digits);
    if (hex.length !== digits || !HEX.test(hex)) return undefined;
    const code = Number.parseInt(hex, 16);
    if (code > 0x10ffff) return undefined;
    const json = code <= 0xffff ? unit(code) : unit(0xd800 + ((code - 0x10000) >> 10)) + unit(0xdc00 + ((code - 0x10000) & 0x3ff));
    return { json, next: at + 2 + digits };
  }
  if (letter >= '0' && letter <= '7') {
    let end = at + 2;
    while (end < at + 4 && body[end] !== undefined && body[end]! >= '0' && body[end]! <= '7') end++;
    return { json: unit(Number.parseInt(body.slice(at + 1, end), 8)), next: end };
  }
  // Python keeps an unknown escape as it is: the backslash is a character.
  return { json: '\\\\', next: at + 1 };
}
