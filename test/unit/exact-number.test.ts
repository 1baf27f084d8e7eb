import fc from '../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { isExactLiteral, isPlainExactDecimal, mayHoldInexactNumbers, readNumber } from '../../src/exact-number.js';
import { parseJsonExact } from '../../src/retrofit/extract/exact-json.js';

describe('exact numbers', () => {
  it.each([
    ['17', true],
    ['9007199254740992', true],
    ['9007199254740993', false],
    ['-9007199254740993', false],
    ['18446744073709551616', false], // 2^64 is a double, but one JSON writes as 18446744073709552000
    ['-56560296839127050', true], // how JSON.stringify writes that double
    ['18446744073709551617', false],
    ['1.10', true],
    ['0.30000000000000004', true],
    ['0.10000000000000001', true], // 17 significant digits: how %.17g printers write 0.1
    ['1234567890.123456789', false],
    ['1e400', false],
    ['1e-400', false],
    ['0.000', true],
    ['1e25', true],
  ])('%s exact: %s', (text, exact) => {
    expect(isExactLiteral(text, Number(text))).toBe(exact);
  });

  it('reads only JSON number syntax, and says when the number is there but inexact', () => {
    expect(readNumber('02134')).toEqual({ ok: false, inexact: false });
    expect(readNumber('1.10')).toEqual({ ok: true, value: 1.1 });
    expect(readNumber('9007199254740993')).toEqual({ ok: false, inexact: true });
  });

  it('the cheap test flags every inexact literal (and may flag more)', () => {
    for (const text of ['9007199254740993', '1234567890.123456789', '1e400', '1e-400', '{"a": 12345678901234567}']) expect(mayHoldInexactNumbers(text)).toBe(true);
    for (const text of ['{"a": 1732800000000, "b": 3.14159}', 'plain prose 2025-01-01']) expect(mayHoldInexactNumbers(text)).toBe(false);
  });
  it('the counting shortcut never calls exact what the full rule calls inexact', () => {
    const decimal = fc
      .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,22}$/), fc.stringMatching(/^[0-9]{0,30}$/), fc.boolean())
      .map(([neg, int, frac, point]) => `${neg ? '-' : ''}${int}${point ? `.${frac}` : frac}`);
    fc.assert(
      fc.property(decimal, (text) => {
        if (isPlainExactDecimal(text, 0, text.length)) expect(isExactLiteral(text, Number(text))).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(isPlainExactDecimal('-0.799999999999999', 0, 18)).toBe(true);
    // 16 and 17 significant digits: not known by counting (the full rule decides).
    expect(isPlainExactDecimal('-0.7999999999999998', 0, 19)).toBe(false);
    expect(isExactLiteral('-0.7999999999999998', -0.7999999999999998)).toBe(true);
    for (const text of ['9007199254740993', '1234567890123456.5', '0.123456789012345678', '1.5e3', '1.2.3']) expect(isPlainExactDecimal(text, 0, text.length)).toBe(false);
  });
});

// Regression (review of the retrofit engine, 2026-12-07): trailing zeros were stripped with /0+$/, which retries at
// every zero of a run: a 60 KB literal held the event loop for 9 s, 200,000 digits would take minutes. Linear now.
describe('exact numbers: long literals', () => {
  const zeros = '0'.repeat(200_000);
  it('reads a 200,000-digit literal in one pass', () => {
    expect(isExactLiteral(`1.${zeros}1`, Number(`1.${zeros}1`))).toBe(false);
    expect(isExactLiteral(`1.${zeros}`, 1)).toBe(true);
    expect(isExactLiteral(`1${zeros}`, Number(`1${zeros}`))).toBe(false);
    expect(readNumber(`0.${zeros}`)).toEqual({ ok: true, value: 0 });
  });

  it('checks a JSON text holding one the same way', () => {
    // Kept as its text: no double holds it.
    expect(parseJsonExact(`{"price":1.${zeros}1}`)).toMatchObject({ ok: true, value: { price: `1.${zeros}1` } });
  });
});

// Regression (review of the retrofit engine, 2026-12-07): every literal of at most 17 significant digits with a
// fraction was called exact, so `0.12345678901234567` was served as 0.12345678901234566 and `1.0000000000000001`
// as 1 (which passed `type: integer`). Exact now means: the double's own shortest text, or what a %.17g printer
// writes of that double.
describe('isExactLiteral: 17 significant digits', () => {
  it.each([
    ['0.10000000000000001', true],
    ['0.30000000000000004', true],
    ['8.3333333333333325e-8', true],
    ['0.33333333333333331', true],
    ['0.33333333333333333', false],
    ['0.12345678901234567', false],
    ['1234567890123456.7', false],
    ['1.0000000000000001', false],
    ['12345678901234567.0', false],
  ])('%s: %s', (text, exact) => {
    expect(isExactLiteral(text, Number(text))).toBe(exact);
  });
});
