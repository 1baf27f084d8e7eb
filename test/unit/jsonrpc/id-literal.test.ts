import { describe, expect, it } from 'vitest';
import { arrayElements, inexactId, keepIdLiteral } from '../../../src/jsonrpc/id-literal.js';

const BIG = '12345678901234567890';
const rounded = JSON.parse(BIG) as number;

describe('inexactId', () => {
  it('is true only for integers past 2^53', () => {
    expect(inexactId(rounded)).toBe(true);
    expect(inexactId(2 ** 53 - 1)).toBe(false);
    expect(inexactId(1.5)).toBe(true);
    expect(inexactId('12345678901234567890')).toBe(false);
    expect(inexactId(null)).toBe(false);
  });
});

describe('keepIdLiteral', () => {
  const original = `{"jsonrpc":"2.0","id":${BIG},"result":{}}`;
  const out = JSON.stringify({ jsonrpc: '2.0', id: rounded, result: { structuredContent: {} } });

  it('writes the original literal into a string, at its head', () => {
    expect(keepIdLiteral(out, rounded, original)).toBe(`{"jsonrpc":"2.0","id":${BIG},"result":{"structuredContent":{}}}`);
  });

  it('into bytes, at the tail, with multi-byte characters before it (byte offsets)', () => {
    const was = Buffer.from(`{"result":{"text":"é€😀"},"jsonrpc":"2.0","id":${BIG}}`);
    const now = Buffer.from(JSON.stringify({ result: { text: 'é€😀', structuredContent: 1 }, jsonrpc: '2.0', id: rounded }));
    const kept = keepIdLiteral(now, rounded, was);
    expect(kept.toString('utf8')).toBe(`{"result":{"text":"é€😀","structuredContent":1},"jsonrpc":"2.0","id":${BIG}}`);
  });

  it('leaves the answer alone when the id is exact, absent from either end, or reads as another id', () => {
    expect(keepIdLiteral('{"id":1}', 1, '{"id":1}')).toBe('{"id":1}');
    const middle = `{"jsonrpc":"2.0","result":{},"id":${BIG},"x":1}`;
    expect(keepIdLiteral(out, rounded, middle)).toBe(out);
    expect(keepIdLiteral(out, rounded, '{"jsonrpc":"2.0","id":98765432109876543210,"result":{}}')).toBe(out);
    expect(keepIdLiteral(out, rounded, undefined)).toBe(out);
  });
});

describe('arrayElements', () => {
  it('splits a batch at its top-level commas, stepping over strings and nesting', () => {
    const a = `{"id":${BIG},"result":{"a":[1,2],"s":"x,]}\\"y"}}`;
    const b = '{"id":2,"result":{}}';
    expect(arrayElements(` [ ${a} ,\n${b} ] `)).toEqual([a, b]);
    expect(arrayElements('[]')).toEqual([]);
  });

  it('is undefined for anything but an array', () => {
    expect(arrayElements('{"id":1}')).toBeUndefined();
    expect(arrayElements('[1,2')).toBeUndefined();
  });
});
