import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inexactNote, parseJsonExact, quoteInexactNumbers } from '../../../../src/retrofit/extract/exact-json.js';
import { parseJson } from '../../../../src/retrofit/safe-json.js';

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
