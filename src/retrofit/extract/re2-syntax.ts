/**
 * A configured JavaScript pattern rewritten in RE2 syntax with the same meaning, or the reason it cannot be.
 * Where the two dialects read the same characters differently, the JavaScript meaning is spelled out:
 * `\s` is JavaScript's whitespace set (RE2's lacks \v and the Unicode spaces); `.` excludes \r, U+2028 and
 * U+2029 as well as \n (RE2's excludes only \n); `\uHHHH` and `\u{H}` become `\x{H}`; `[\b]` is a
 * backspace. Lookaround and backreferences (which RE2 cannot run in linear time), letter escapes RE2 reads
 * otherwise (`\a`, `\z`, `\Q`…), legacy octal escapes and lone surrogates are refused: such patterns stay
 * JavaScript RegExps (see pattern.ts). Known remaining difference: with `i`, RE2 folds case by Unicode
 * simple folding, so `k` also matches U+212A (KELVIN SIGN) and `s` U+017F; and RE2 always matches by code
 * point, as JavaScript does with `u`.
 */

/** The RE2 form, or why there is none. `lineAnchors`: `^`/`$` under flag `m` (see pattern.ts). */
export type Re2Translation =
  | { readonly ok: true; readonly source: string; readonly lineAnchors: boolean }
  | { readonly ok: false; readonly reason: string };

type Piece = { readonly ok: true; readonly text: string; readonly end: number } | { readonly ok: false; readonly reason: string };

const SPACES = '\\t\\n\\x{B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
const NAMED_GROUP = /\(\?<([A-Za-z_][A-Za-z0-9_]*)>/y;
const HEX2 = /[0-9a-fA-F]{2}/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const BRACED_HEX = /\{([0-9a-fA-F]{1,6})\}/y;
const PROPERTY = /\{([A-Za-z_]+)\}/y;

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });
const hex = (code: number): string => `\\x{${code.toString(16).toUpperCase()}}`;

function sticky(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/** `\u` escapes: a surrogate pair written as two escapes is one code point; a lone surrogate is refused. */
function unicodeEscape(src: string, i: number, unicode: boolean): Piece {
  if (unicode) {
    const braced = sticky(BRACED_HEX, src, i + 2);
    if (braced) return { ok: true, text: hex(parseInt(braced[1]!, 16)), end: i + 2 + braced[0].length };
  }
  const four = sticky(HEX4, src, i + 2);
  if (!four) return fail('pattern uses a \\u escape RE2 reads otherwise');
  const code = parseInt(four[0], 16);
  if (code >= 0xd800 && code <= 0xdbff && src.startsWith('\\u', i + 6)) {
    const low = sticky(HEX4, src, i + 8);
    const lowCode = low ? parseInt(low[0], 16) : 0;
    if (lowCode >= 0xdc00 && lowCode <= 0xdfff) return { ok: true, text: hex(0x10000 + ((code - 0xd800) << 10) + (lowCode - 0xdc00)), end: i + 12 };
  }
  if (code >= 0xd800 && code <= 0xdfff) return fail('pattern holds a lone surrogate, which RE2 cannot match');
  return { ok: true, text: hex(code), end: i + 6 };
}

/** One escape starting at `src[i]` (a backslash), inside a class or not. */
function escape(src: string, i: number, unicode: boolean, inClass: boolean): Piece {
  const n = src[i + 1];
  if (n === undefined) return fail('pattern ends in a backslash');
  const two = (text: string): Piece => ({ ok: true, text, end: i + 2 });
  if (n >= '1' && n <= '9') return fail('pattern uses a backreference, which RE2 cannot run');
  switch (n) {
    case '0':
      return /[0-9]/.test(src[i + 2] ?? '') ? fail('pattern uses a legacy octal escape') : two('\\x{0}');
    case 'd': case 'D': case 'w': case 'W': case 'f': case 'n': case 'r': case 't': case 'v':
      return two(`\\${n}`);
    case 'b':
      return two(inClass ? '\\x{8}' : '\\b');
    case 'B':
      return inClass ? fail('pattern uses [\\B]') : two('\\B');
    case 's':
      return two(inClass ? SPACES : `[${SPACES}]`);
    case 'S':
      return inClass ? fail('pattern uses \\S inside a class, which RE2 cannot express') : two(`[^${SPACES}]`);
    case 'c': {
      const letter = src[i + 2] ?? '';
      return /[A-Za-z]/.test(letter) ? { ok: true, text: hex(letter.charCodeAt(0) % 32), end: i + 3 } : fail('pattern uses a \\c escape RE2 reads otherwise');
    }
    case 'x': {
      const h = sticky(HEX2, src, i + 2);
      return h ? { ok: true, text: hex(parseInt(h[0], 16)), end: i + 4 } : fail('pattern uses a \\x escape RE2 reads otherwise');
    }
    case 'u':
      return unicodeEscape(src, i, unicode);
    case 'p': case 'P': {
      const p = unicode ? sticky(PROPERTY, src, i + 2) : null;
      return p ? { ok: true, text: `\\${n}{${p[1]!}}`, end: i + 2 + p[0].length } : fail('pattern uses a \\p escape RE2 reads otherwise');
    }
    case 'k':
      return fail('pattern uses a backreference, which RE2 cannot run');
    default:
      break;
  }
  if (/[A-Za-z0-9]/.test(n)) return fail(`pattern uses the escape \\${n}, which RE2 reads otherwise`);
  const code = src.codePointAt(i + 1)!;
  // Punctuation escapes mean the same in both; anything else is written as its code point.
  if (code < 0x80) return two(`\\${n}`);
  return { ok: true, text: hex(code), end: i + 1 + (code > 0xffff ? 2 : 1) };
}

/** A character class starting at `src[i]` (`[`), up to its `]`. */
function charClass(src: string, i: number, unicode: boolean): Piece {
  let j = i + 1;
  let out = '[';
  if (src[j] === '^') {
    out += '^';
    j++;
  }
  // JavaScript's [] and [^] (nothing / anything) are `]`-first classes to RE2.
  if (src[j] === ']') return fail('pattern uses an empty class ([] or [^]), which RE2 reads otherwise');
  while (j < src.length && src[j] !== ']') {
    const c = src[j]!;
    if (c === '\\') {
      const piece = escape(src, j, unicode, true);
      if (!piece.ok) return piece;
      // A class escape next to `-` is a literal dash to JavaScript and a range to RE2.
      if (/^\\[dDwWs]$/.test(src.slice(j, j + 2)) && (src[j + 2] === '-' && src[j + 3] !== ']')) return fail('pattern uses a class escape in a range');
      out += piece.text;
      j = piece.end;
      continue;
    }
    // `[` is literal inside a JavaScript class; to RE2 `[:` may open a POSIX class.
    out += c === '[' ? '\\[' : c;
    j++;
  }
  if (j >= src.length) return fail('pattern has an unterminated class');
  return { ok: true, text: `${out}]`, end: j + 1 };
}

/** Rewrite a JavaScript pattern (already accepted by `new RegExp(source, flags)`) in RE2 syntax. */
export function toRe2(source: string, flags: string): Re2Translation {
  const unicode = flags.includes('u');
  const dotAll = flags.includes('s');
  let out = '';
  let anchors = false;
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\' || c === '[') {
      const piece = c === '\\' ? escape(source, i, unicode, false) : charClass(source, i, unicode);
      if (!piece.ok) return piece;
      out += piece.text;
      i = piece.end;
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      if (source.startsWith('(?:', i)) {
        out += '(?:';
        i += 3;
        continue;
      }
      if (source.startsWith('(?=', i) || source.startsWith('(?!', i)) return fail('pattern uses lookahead, which RE2 cannot run');
      if (source.startsWith('(?<=', i) || source.startsWith('(?<!', i)) return fail('pattern uses lookbehind, which RE2 cannot run');
      const named = sticky(NAMED_GROUP, source, i);
      if (!named) return fail('pattern uses a group form RE2 cannot run');
      out += named[0];
      i += named[0].length;
      continue;
    }
    if (c === '.') out += dotAll ? '(?s:.)' : DOT;
    else {
      if (c === '^' || c === '$') anchors = true;
      out += c;
    }
    i++;
  }
  return { ok: true, source: out, lineAnchors: anchors && flags.includes('m') };
}
