import { describe, expect, it } from 'vitest';
import { extractScalars, wantsScalar } from '../../../../src/retrofit/extract/scalar.js';

describe('scalar', () => {
  it('knows when a schema wants a scalar', () => {
    expect(wantsScalar({ type: 'integer' })).toBe(true);
    expect(wantsScalar({ type: ['string', 'null'] })).toBe(true);
    expect(wantsScalar({ anyOf: [{ type: 'object' }, { type: 'number' }] })).toBe(true);
    expect(wantsScalar({ enum: ['a', 'b'] })).toBe(true);
    expect(wantsScalar({ type: 'object' })).toBe(false);
    expect(wantsScalar({ type: 'array' })).toBe(false);
    expect(wantsScalar(true)).toBe(true);
    expect(wantsScalar({ description: 'anything' })).toBe(true);
    expect(wantsScalar({ $defs: { n: { type: 'integer' } }, $ref: '#/$defs/n' })).toBe(true);
    expect(wantsScalar({ $defs: { o: { type: 'object' } }, $ref: '#/$defs/o' })).toBe(false);
    expect(wantsScalar({ properties: { a: {} } })).toBe(false);
  });
  it.each([
    [' 17\n', [17, '17', ' 17\n']],
    ['true', [true, 'true']],
    ['None', [null, 'None']],
    ['-3.5e2', [-350, '-3.5e2']],
    ['hello', ['hello']],
  ])('%j → %j', (text, expected) => {
    expect(extractScalars(text)).toEqual(expected);
  });
});
