import fc from '../../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { extractEmbedded, scanned } from '../../../../src/retrofit/extract/embedded.js';
import { MAX_NESTING, topLevelSpans } from '../../../../src/retrofit/extract/spans.js';

describe('embedded', () => {
  it.each([
    ['The weather in Paris: {"temp": 21, "sky": "clear"}. Enjoy!', { temp: 21, sky: 'clear' }],
    ['Found 3 items: [1, 2, 3]', [1, 2, 3]],
    ['See {this note} — result: {"ok": true}', { ok: true }],
    ['It\'s "quoted" prose then {"s": "a } inside [ a string"}', { s: 'a } inside [ a string' }],
    ['{"escaped": "quote \\" and } brace"} done', { escaped: 'quote " and } brace' }],
  ])('%s', (text, expected) => {
    expect(extractEmbedded(text)).toEqual(expected);
  });
  it('yields nothing when prose holds two JSON values (ambiguous)', () => {
    expect(extractEmbedded('first {"a": 1} then {"b": 2}')).toBeUndefined();
  });
  it('yields nothing for truncated JSON, not its inner pieces', () => {
    expect(extractEmbedded('Result: {"a": [1, 2], "b": "trunc')).toBeUndefined();
    expect(extractEmbedded('Result: {"a": [1, 2], "b": 3')).toBeUndefined();
  });
  it('recovers after a mismatched closer', () => {
    expect(extractEmbedded('oops [ } then {"a": 1}')).toEqual({ a: 1 });
  });
});

describe('embedded and deep nesting', () => {
  it('a JSON value followed by nesting deeper than MAX_NESTING yields nothing (the text is not trusted)', () => {
    expect(extractEmbedded(`ok {"a": 1} then ${'['.repeat(MAX_NESTING + 1)}`)).toBeUndefined();
    expect(extractEmbedded(`ok {"a": 1} then ${'['.repeat(MAX_NESTING)}`)).toEqual({ a: 1 });
  });
});

describe('spans', () => {
  it('are linear on deeply unbalanced input', () => {
    const text = '['.repeat(200_000) + '{"a":1}';
    expect(topLevelSpans(text)).toEqual([]);
  });
  it('respects the limit', () => {
    expect(topLevelSpans('{} {} {}', '"', 2)).toHaveLength(2);
  });
});

describe('embedded without the scan', () => {
  // Prose, JSON values and loose brackets and quotes in any order: reading the outer stretch first must give
  // what the bracket scan alone gives (nesting stays far below MAX_NESTING here).
  const fragment = fc.oneof(
    fc.constantFrom('The result: ', ' and ', '. Done.', '"', "'", '[', ']', '{', '}', '[citation needed]', '{note}', ' \\" ', '\n'),
    fc.json({ maxDepth: 4 }),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v, null, 1)),
  );
  it('gives what the bracket scan gives, for any mix of prose and JSON', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        expect(extractEmbedded(text)).toEqual(scanned(text));
      }),
      { numRuns: 3000 },
    );
  });
  it('reads one large value in prose, and two values stay ambiguous', () => {
    const value = { readings: Array.from({ length: 500 }, (_, i) => ({ id: i, t: i / 10, tags: ['a', `s${i}`] })) };
    expect(extractEmbedded(`Report: ${JSON.stringify(value)} end.`)).toEqual(value);
    expect(extractEmbedded(`Report: ${JSON.stringify(value)} and {"b": 2} end.`)).toBeUndefined();
  });
});
