import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../src/json.js';
import { rootTypes, wantsArray, wantsScalar } from '../../../src/retrofit/root-types.js';

describe('rootTypes', () => {
  it.each<[JsonSchema, string[]]>([
    [{ type: 'integer' }, ['integer']],
    [{ type: ['array', 'null'] }, ['array', 'null']],
    [{ anyOf: [{ type: 'object' }, { oneOf: [{ type: 'string' }] }] }, ['object', 'string']],
    [{ $defs: { a: { type: 'array' } }, $ref: '#/$defs/a' }, ['array']],
    [{ enum: [1, 'a', null, [1]] }, ['number', 'string', 'null', 'array']],
    [{ const: { a: 1 } }, ['object']],
    [{ $ref: '#' }, []],
  ])('%j', (schema, expected) => {
    expect([...rootTypes(schema)].sort()).toEqual([...expected].sort());
  });

  it('unconstrained schemas admit everything', () => {
    expect(rootTypes(true).size).toBe(7);
    expect(rootTypes({ description: 'x', $defs: {} }).size).toBe(7);
  });

  it('wantsScalar and wantsArray', () => {
    expect(wantsScalar({ type: 'array' })).toBe(false);
    expect(wantsArray({ type: 'array' })).toBe(true);
    expect(wantsArray({ anyOf: [{ type: 'object' }, { type: 'array' }] })).toBe(true);
    expect(wantsArray({ type: 'object' })).toBe(false);
    expect(wantsScalar({ properties: {} })).toBe(false);
  });
});
