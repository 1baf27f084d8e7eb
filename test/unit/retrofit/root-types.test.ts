import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../src/json.js';
import { admitsScalar, rootTypes } from '../../../src/retrofit/root-types.js';

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

  it('admitsScalar, and array roots', () => {
    expect(admitsScalar(rootTypes({ type: 'array' }))).toBe(false);
    expect(rootTypes({ type: 'array' }).has('array')).toBe(true);
    expect(rootTypes({ anyOf: [{ type: 'object' }, { type: 'array' }] }).has('array')).toBe(true);
    expect(rootTypes({ type: 'object' }).has('array')).toBe(false);
    expect(admitsScalar(rootTypes({ properties: {} }))).toBe(false);
  });
});
