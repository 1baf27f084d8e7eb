import { describe, expect, it } from 'vitest';
import type { Json, JsonSchema } from '../../../src/json.js';
import { coerce } from '../../../src/retrofit/coerce.js';

const cases: [string, JsonSchema, Json, Json][] = [
  ['integer', { type: 'integer' }, '17', 17],
  ['number', { type: 'number' }, ' -2.5 ', -2.5],
  ['boolean', { type: 'boolean' }, 'true', true],
  ['integer refuses a fraction', { type: 'integer' }, '1.5', '1.5'],
  ['string stays', { type: 'string' }, '17', '17'],
  ['string|integer stays', { type: ['string', 'integer'] }, '17', '17'],
  ['not a number', { type: 'number' }, '12abc', '12abc'],
  ['numbers never become strings', { type: 'string' }, 17, 17],
  ['null never becomes anything', { type: 'integer' }, null, null],
  ['nested properties', { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } } }, { a: '1', b: '2' }, { a: 1, b: '2' }],
  ['items', { type: 'array', items: { type: 'number' } }, ['1', '2'], [1, 2]],
  ['prefixItems', { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'string' }] }, ['1', '2'], [1, '2']],
  ['additionalProperties', { type: 'object', additionalProperties: { type: 'boolean' } }, { x: 'false' }, { x: false }],
  ['patternProperties', { type: 'object', patternProperties: { '^n_': { type: 'integer' } } }, { n_a: '3', s: '3' }, { n_a: 3, s: '3' }],
  ['$ref into $defs', { $defs: { n: { type: 'integer' } }, type: 'object', properties: { a: { $ref: '#/$defs/n' } } }, { a: '4' }, { a: 4 }],
  ['recursive $ref', { $defs: { t: { type: 'object', properties: { v: { type: 'integer' }, kids: { type: 'array', items: { $ref: '#/$defs/t' } } } } }, $ref: '#/$defs/t' }, { v: '1', kids: [{ v: '2', kids: [] }] }, { v: 1, kids: [{ v: 2, kids: [] }] }],
  ['allOf', { allOf: [{ type: 'object' }, { properties: { a: { type: 'integer' } } }] }, { a: '5' }, { a: 5 }],
  ['anyOf of numbers', { anyOf: [{ type: 'integer' }, { type: 'boolean' }] }, 'true', true],
  ['anyOf with a string branch stays', { anyOf: [{ type: 'integer' }, { type: 'string' }] }, '1', '1'],
  ['anyOf object branch', { anyOf: [{ type: 'array' }, { type: 'object', properties: { a: { type: 'integer' } } }] }, { a: '6' }, { a: 6 }],
  ['draft-07 definitions', { definitions: { n: { type: 'number' } }, items: { $ref: '#/definitions/n' } }, ['7'], [7]],
  ['$ref cycle without data terminates', { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }, '1', '1'],
];

describe('coerce', () => {
  it.each(cases)('%s', (_name, schema, value, expected) => {
    expect(coerce(value, schema)).toEqual(expected);
  });

  it('does not mutate its input', () => {
    const value = { a: '1' };
    coerce(value, { properties: { a: { type: 'integer' } } });
    expect(value).toEqual({ a: '1' });
  });
});

describe('coerce never changes a number', () => {
  it('leaves a string a JSON number cannot hold as it is, and says why at its pointer', () => {
    const notes: string[] = [];
    const schema: JsonSchema = { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, n: { type: 'number' } } } };
    expect(coerce([{ id: '9007199254740993', n: '2.5' }], schema, notes)).toEqual([{ id: '9007199254740993', n: 2.5 }]);
    expect(notes).toEqual([expect.stringMatching(/^\/0\/id 9007199254740993 has more digits than a JSON number holds exactly/)]);
  });
  it('turns 9007199254740992 (a double exactly) and 1.10 into numbers', () => {
    expect(coerce({ a: '9007199254740992', b: '1.10' }, { properties: { a: { type: 'integer' }, b: { type: 'number' } } })).toEqual({ a: 9007199254740992, b: 1.1 });
  });
});
