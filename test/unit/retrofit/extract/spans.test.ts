import fc from '../../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING, topLevelSpans, type Span } from '../../../../src/retrofit/extract/spans.js';

/** The obvious char-by-char scan, kept as the reference the optimised one (indexOf over strings) must match. */
function reference(text: string, quotes = '"'): Span[] {
  const spans: Span[] = [];
  const stack: string[] = [];
  let start = -1;
  let inString = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === inString) inString = '';
      continue;
    }
    if (c === '{' || c === '[') {
      if (stack.length === 0) start = i;
      if (stack.length >= MAX_NESTING) return [];
      stack.push(c === '{' ? '}' : ']');
    } else if (c === '}' || c === ']') {
      if (stack.length === 0) continue;
      if (stack.at(-1) !== c) {
        stack.length = 0;
        continue;
      }
      stack.pop();
      if (stack.length === 0) spans.push({ start, end: i + 1 });
    } else if (stack.length > 0 && quotes.includes(c)) inString = c;
  }
  return spans;
}

describe('topLevelSpans', () => {
  it('finds top-level spans, skipping brackets inside strings and escaped quotes; outside brackets quotes are prose', () => {
    const text = 'see {"a": "}\\"{"} and [1, "]"] and, outside brackets, quotes mean nothing: "{x}"';
    expect(topLevelSpans(text).map((s) => text.slice(s.start, s.end))).toEqual(['{"a": "}\\"{"}', '[1, "]"]', '{x}']);
  });

  it('an unterminated string swallows the rest of the text', () => {
    expect(topLevelSpans('{"a": "oops} [1]')).toEqual([]);
  });

  it('single quotes open strings only when asked (Python reprs)', () => {
    const text = "{'a': '}'}";
    expect(topLevelSpans(text, '"\'')).toEqual([{ start: 0, end: text.length }]);
    expect(topLevelSpans(text)).toEqual([{ start: 0, end: 8 }]);
  });

  it('matches the char-by-char reference on arbitrary bracket-and-quote text', () => {
    const alphabet = fc.constantFrom('{', '}', '[', ']', '"', "'", '\\', 'a', ' ', ':', ',');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 80 }).map((cs) => cs.join('')), fc.constantFrom('"', '"\''), (text, quotes) => {
        expect(topLevelSpans(text, quotes)).toEqual(reference(text, quotes));
      }),
      { numRuns: 2000 },
    );
  });
});
