import fc from '../../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { inexactNote, parseJsonExact, quoteInexactNumbers } from '../../../../src/retrofit/extract/exact-json.js';
import { isExactLiteral, JSON_NUMBER_RE } from '../../../../src/exact-number.js';
import { parseJson } from '../../../../src/retrofit/safe-json.js';

/** The rule, written plainly: every whole token outside strings that is an inexact JSON number gets quoted. */
function reference(text: string): { text: string; inexact: string[] } {
  const token = /"(?:[^"\\]|\\.)*"?|[0-9A-Za-z.+\-_]+|[^"0-9A-Za-z.+\-_]+/gy;
  const inexact: string[] = [];
  const out = text.replace(token, (t) => {
    if (t.startsWith('"') || !JSON_NUMBER_RE.test(t) || isExactLiteral(t, Number(t))) return t;
    inexact.push(t);
    return `"${t}"`;
  });
  return { text: out, inexact };
}

describe('exact JSON', () => {
  it('keeps an integer beyond 2^53 as its exact digits', () => {
    expect(parseJsonExact('{"id": 9007199254740993, "n": 2}')).toEqual({ ok: true, value: { id: '9007199254740993', n: 2 }, inexact: ['9007199254740993'] });
  });
  it('never touches strings, keys or tokens that are not JSON numbers', () => {
    const text = '{"9007199254740993": "9007199254740993 \\" 12345678901234567", "a": [1.5, -0, 1e3]}';
    expect(quoteInexactNumbers(text)).toEqual({ text, inexact: [] });
    expect(parseJsonExact('[01234567890123456789]')).toEqual({ ok: false });
  });
  it('the note names the literals', () => {
    expect(inexactNote('[9007199254740993, 9007199254740995]')).toMatch(/^the text holds 9007199254740993, 9007199254740995: more digits than a JSON number holds exactly/);
    expect(inexactNote('[1, 2]')).toBeUndefined();
  });
  it('agrees with the prototype-safe JSON.parse on every JSON text a double printer wrote', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const plain = parseJson(text);
        expect(plain.ok).toBe(true);
        if (plain.ok) expect(parseJsonExact(text)).toEqual({ ok: true, value: plain.value, inexact: [] });
      }),
      { numRuns: 500 },
    );
  });
  it('quotes exactly what the plain rule quotes, whatever surrounds the literals', () => {
    const piece = fc.oneof(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom('1e400', '-1e-400', '1.5e+300', '0.1000000000000000055511151231257827', '12345678901234567.5', '007', '1.e5', '9007199254740993x', 'x9007199254740993', '1+2', '-'),
      fc.constantFrom('"9007199254740993"', '"a\\"9007199254740993"', '"\\\\"', ', ', ': ', '[', ']', '{', '}', ' ', '\n', 'true'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(quoteInexactNumbers(text)).toEqual(reference(text));
      }),
      { numRuns: 2000 },
    );
  });
  it('reads back random big integers exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), (n) => {
        const parsed = parseJsonExact(`{"v": ${n}}`);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const v = (parsed.value as { v: unknown }).v;
        if (typeof v === 'number') expect(BigInt(v)).toBe(n);
        else expect(v).toBe(String(n));
      }),
      { numRuns: 300 },
    );
  });
});
