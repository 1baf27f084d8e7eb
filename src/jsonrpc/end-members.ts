/**
 * The names of a JSON object's top-level members that its ends alone show: from the head, those before the
 * first value that runs past it; from the tail, those after the last value that starts before it. Of an
 * over-long message only its ends are kept (./sniff.ts), and they must still tell a request from an answer
 * wherever its serialiser put `method`. Each end is read on its own, forwards or backwards from the brace it
 * starts or ends with; a value cut by the end of the sample stops the reading, so nothing between the ends (nor
 * where a sample was cut) is guessed at. No recursion: a depth count.
 */

import { stringEnd } from './json-strings.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isOpen = (c: number): boolean => c === OPEN_BRACE || c === OPEN_BRACKET;
const isClose = (c: number): boolean => c === CLOSE_BRACE || c === CLOSE_BRACKET;
/** A character of a number, `true`, `false` or `null`. */
const isScalar = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2b || c === 0x2d || c === 0x2e;

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

function skipSpaceBack(text: string, at: number): number {
  while (at >= 0 && isSpace(text.charCodeAt(at))) at--;
  return at;
}

/** A member name as JSON reads it (escapes decoded), from the text between its quotes. */
function nameOf(text: string, from: number, to: number): string {
  const raw = text.slice(from, to);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * Where the string closed at `close` opens (its opening quote), or -1: not in the text. Inside a string every
 * quote is escaped, so the first quote back with an even run of backslashes before it opens the string; a run
 * that reaches the start of the text could be longer: unknown.
 */
function stringStart(text: string, close: number): number {
  for (let at = text.lastIndexOf('"', close - 1); at !== -1; at = at === 0 ? -1 : text.lastIndexOf('"', at - 1)) {
    let before = at - 1;
    while (before >= 0 && text.charCodeAt(before) === BACKSLASH) before--;
    if (before < 0) return -1;
    if ((at - 1 - before) % 2 === 0) return at;
  }
  return -1;
}

/** Just past the value that starts at `at`, or -1 when it runs past the text. */
function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) {
    const close = stringEnd(text, at);
    return close === -1 ? -1 : close + 1;
  }
  if (isOpen(c)) {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = stringEnd(text, i);
        if (i === -1) return -1;
      } else if (isOpen(d)) depth++;
      else if (isClose(d) && --depth === 0) return i + 1;
    }
    return -1;
  }
  let i = at;
  while (i < text.length && isScalar(text.charCodeAt(i))) i++;
  // Nothing read, or a scalar the sample may have cut.
  return i === at || i === text.length ? -1 : i;
}

/** Where the value that ends at `at` (its last character) starts, or -1 when it starts before the text. */
function valueStart(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringStart(text, at);
  if (isClose(c)) {
    let depth = 0;
    for (let i = at; i >= 0; i--) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = stringStart(text, i);
        if (i === -1) return -1;
      } else if (isClose(d)) depth++;
      else if (isOpen(d) && --depth === 0) return i;
    }
    return -1;
  }
  let i = at;
  while (i >= 0 && isScalar(text.charCodeAt(i))) i--;
  return i === at || i < 0 ? -1 : i + 1;
}

/** The top-level member names the head of an object shows, in order. */
export function headMembers(head: string): string[] {
  const names: string[] = [];
  let i = skipSpace(head, 0);
  if (head.charCodeAt(i) !== OPEN_BRACE) return names;
  for (i = skipSpace(head, i + 1); head.charCodeAt(i) === QUOTE; i = skipSpace(head, i + 1)) {
    const close = stringEnd(head, i);
    if (close === -1) return names;
    const colon = skipSpace(head, close + 1);
    if (head.charCodeAt(colon) !== COLON) return names;
    names.push(nameOf(head, i + 1, close));
    const end = valueEnd(head, skipSpace(head, colon + 1));
    if (end === -1) return names;
    i = skipSpace(head, end);
    if (head.charCodeAt(i) !== COMMA) return names;
  }
  return names;
}

/** The top-level member names the tail of an object shows, last first. */
export function tailMembers(tail: string): string[] {
  const names: string[] = [];
  let i = skipSpaceBack(tail, tail.length - 1);
  if (tail.charCodeAt(i) !== CLOSE_BRACE) return names;
  for (i = skipSpaceBack(tail, i - 1); i >= 0; i = skipSpaceBack(tail, i - 1)) {
    const start = valueStart(tail, i);
    if (start === -1) return names;
    const colon = skipSpaceBack(tail, start - 1);
    if (tail.charCodeAt(colon) !== COLON) return names;
    const close = skipSpaceBack(tail, colon - 1);
    if (tail.charCodeAt(close) !== QUOTE) return names;
    const open = stringStart(tail, close);
    if (open === -1) return names;
    names.push(nameOf(tail, open + 1, close));
    i = skipSpaceBack(tail, open - 1);
    if (tail.charCodeAt(i) !== COMMA) return names;
  }
  return names;
}
