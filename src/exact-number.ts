/**
 * Numbers read from text must not change value. A JSON number is an IEEE double: integers beyond 2^53 and
 * decimals with more digits than a double keeps come out as a different number (Postgres int8
 * 9007199254740993 becomes 9007199254740992). The rule here, used by coercion, the scalar reading, YAML and
 * the JSON readings alike, asks whether the value, written back as JSON, shows the number the text shows:
 * - a literal that the double prints back as the same decimal value is exact (`17`, `1.10`, and the
 *   `-56560296839127050` a JavaScript server wrote from a double);
 * - otherwise a literal written as an integer (digits only) is inexact;
 * - a literal with a fraction or an exponent is still exact when it is what a `%.17g` printer writes of its
 *   double (`0.10000000000000001` is the double 0.1); any other (`0.12345678901234567`, whose double prints
 *   `0.12345678901234566`) is not;
 * - nothing that overflows to infinity or underflows to zero is exact.
 */

/** JSON's number syntax (no leading zeros, no `+`, no bare `.5`). */
export const JSON_NUMBER_RE = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
/** Decimal syntax as people write it: leading zeros and a `+` allowed (`007`, `+1.5`). */
const DECIMAL_RE = /^[-+]?(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/;

/** The smallest normal double: below it (subnormals) fewer digits survive. */
const MIN_NORMAL = 2.2250738585072014e-308;
const BIG_EXPONENT = /[eE][-+]?\d{3}/;

function isDigitOrPoint(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e;
}

/**
 * The index of a character inside a run of 16 digits and points at or after `from`, or -1 (every inexact
 * literal has 16 digits, or 18 around a point). Skips ahead: a run of 16 must cover every 16th character, so
 * most of the text is never looked at (a regex here tries a match at every digit and costs twice the JSON
 * parse on timestamp-heavy output).
 */
export function longDigitRun(text: string, from: number): number {
  let i = from;
  while (i + 15 < text.length) {
    if (!isDigitOrPoint(text.charCodeAt(i + 15))) {
      i += 16;
      continue;
    }
    let k = i + 14;
    while (k >= i && isDigitOrPoint(text.charCodeAt(k))) k--;
    if (k < i) return i;
    i = k + 1;
  }
  return -1;
}

/** A three-digit exponent (overflow, underflow), for a global search. */
export const BIG_EXPONENT_G = /[eE][-+]?\d{3}/g;

/**
 * True when `text` may hold a number literal a double cannot represent exactly: a long digit run, or a
 * three-digit exponent (overflow, underflow). Cheap (measured at 10–30% of JSON.parse on the same text) and
 * may say yes falsely; most texts have neither, so they pay only this.
 */
export function mayHoldInexactNumbers(text: string): boolean {
  return longDigitRun(text, 0) !== -1 || BIG_EXPONENT.test(text);
}

/** How many `0`s `digits` starts with. A loop: `/0+$/` on a long run of zeros is quadratic (it retries at each). */
function leadingZeros(digits: string): number {
  let i = 0;
  while (i < digits.length && digits.charCodeAt(i) === 0x30) i++;
  return i;
}

/** How many `0`s `digits` ends with (see leadingZeros). */
function trailingZeros(digits: string): number {
  let i = digits.length;
  while (i > 0 && digits.charCodeAt(i - 1) === 0x30) i--;
  return digits.length - i;
}

/** `sign digits e exponent` with no leading or trailing zeros: equal for equal decimal values. */
function canonical(m: RegExpExecArray): string {
  const sign = m[0].startsWith('-') ? '-' : '';
  const [, intPart = '', fracPart = '', exponent] = m;
  let digits = intPart + fracPart;
  digits = digits.slice(leadingZeros(digits));
  const trailing = trailingZeros(digits);
  digits = digits.slice(0, digits.length - trailing);
  const exp = Number(exponent ?? 0) - fracPart.length + trailing;
  return digits === '' ? '0' : `${sign}${digits}e${exp}`;
}

/**
 * True when the decimal literal `text` (DECIMAL_RE syntax) names the double `value` (= `Number(text)`)
 * exactly enough, by the rule above.
 */
export function isExactLiteral(text: string, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  // At most 15 characters means at most 15 significant digits, which every normal double prints back.
  if (text.length <= 15 && Math.abs(value) >= MIN_NORMAL) return true;
  // What a JavaScript (or any shortest-round-trip) printer wrote: the double's own text.
  if (String(value) === text) return true;
  const m = DECIMAL_RE.exec(text);
  if (!m) return Number.isSafeInteger(value); // hex/octal forms (YAML): exact while safe
  const [, intPart = '', fracPart = '', exponent] = m;
  if (value === 0) return !/[1-9]/.test(intPart + fracPart);
  const printed = DECIMAL_RE.exec(String(value));
  if (printed && canonical(printed) === canonical(m)) return true;
  if (fracPart === '' && exponent === undefined) return false;
  // What a `%.17g` printer writes of this very double (`0.10000000000000001` for 0.1); any other 17-digit
  // literal (`0.12345678901234567`, `1.0000000000000001`) names a number the double is not.
  const precise = DECIMAL_RE.exec(value.toPrecision(17));
  return precise !== null && canonical(precise) === canonical(m);
}

/**
 * True when the token `text[from, to)` is a plain decimal the rule above calls exact without parsing it: a
 * point, no exponent, at most 15 significant digits (every double prints 15 back), and short enough
 * (40 characters) that it is far from the subnormals. `-0.7999999999999998`, `1.10`. False means "not
 * known", not inexact. A counting pass: cheaper than the parse and print-back the full rule needs.
 */
export function isPlainExactDecimal(text: string, from: number, to: number): boolean {
  if (to - from > 40) return false;
  let intDigits = 0;
  let significant = 0;
  let leading = true;
  let point = false;
  for (let k = text.charCodeAt(from) === 0x2d ? from + 1 : from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x2e) {
      if (point) return false;
      point = true;
    } else if (c >= 0x30 && c <= 0x39) {
      if (!point) intDigits++;
      if (c !== 0x30) leading = false;
      if (!leading) significant++;
    } else return false;
  }
  return point && intDigits <= 15 && significant <= 15;
}

/** The outcome of reading a number from text. */
export type NumberReading =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly inexact: boolean };

/**
 * The number a trimmed text spells in JSON syntax, when it spells one exactly. `inexact`: it is a number,
 * but a JSON number cannot hold it (the caller then keeps the text and can say why).
 */
export function readNumber(text: string): NumberReading {
  if (!JSON_NUMBER_RE.test(text)) return { ok: false, inexact: false };
  const value = Number(text);
  return isExactLiteral(text, value) ? { ok: true, value } : { ok: false, inexact: true };
}

/** The reason given when a number is kept as text because a JSON number cannot hold it. */
export function inexactReason(pointer: string, text: string): string {
  const shown = text.length > 40 ? `${text.slice(0, 37)}...` : text;
  return `${pointer === '' ? '/' : pointer} ${shown} has more digits than a JSON number holds exactly (integers beyond 2^53, decimals beyond 17 significant digits); it is kept as the string "${shown}", so the schema must allow a string there`;
}
