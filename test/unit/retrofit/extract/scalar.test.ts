import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../../src/json.js';
import { extractScalars } from '../../../../src/retrofit/extract/scalar.js';
import { admitsScalar, rootTypes } from '../../../../src/retrofit/root-types.js';

/** Whether the scalar reading is offered at a schema's root (extract/index.ts asks it where the reading lands). */
const wantsScalar = (schema: JsonSchema): boolean => admitsScalar(rootTypes(schema));

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
    // The string reading is the text exactly: a string root is never trimmed.
    [' 17\n', [17, ' 17\n']],
    ['true', [true, 'true']],
    ['None', [null, 'None']],
    ['-3.5e2', [-350, '-3.5e2']],
    ['hello', ['hello']],
    ['{"k": 1}\n', ['{"k": 1}\n']],
    ['  leading spaces', ['  leading spaces']],
  ])('%j → %j', (text, expected) => {
    expect(extractScalars(text).values).toEqual(expected);
  });
  it('a number a JSON number cannot hold is offered only as text', () => {
    expect(extractScalars('9007199254740993')).toEqual({ values: ['9007199254740993'], inexact: true });
    expect(extractScalars('9007199254740992')).toEqual({ values: [9007199254740992, '9007199254740992'], inexact: false });
  });
});
