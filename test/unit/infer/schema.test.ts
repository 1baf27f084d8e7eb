/** inferSchema's rules: types, integers, required, merged items, formats, enums, depth. */
import { describe, expect, it } from 'vitest';
import { ENUM_MIN_SAMPLES, inferSchema, MAX_DEPTH } from '../../../src/infer/index.js';
import type { Json } from '../../../src/json.js';

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

describe('inferSchema', () => {
  it('types scalars; integer only when every number is one', () => {
    expect(inferSchema([1, 2, -3])).toEqual({ type: 'integer' });
    expect(inferSchema([1, 2.5])).toEqual({ type: 'number' });
    expect(inferSchema(['a'])).toEqual({ type: 'string' });
    expect(inferSchema([true, false])).toEqual({ type: 'boolean' });
    expect(inferSchema([null])).toEqual({ type: 'null' });
    expect(inferSchema([1, 'a', null])).toEqual({ type: ['string', 'integer', 'null'] });
  });

  it('requires the keys present in every object and describes the others', () => {
    const schema = inferSchema([{ id: 1, name: 'a', tag: 'x' }, { id: 2, name: 'b' }, { id: 3, name: null, extra: [] }]);
    expect(schema).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' }, name: { type: ['string', 'null'] }, tag: { type: 'string' }, extra: { type: 'array' } },
      required: ['id', 'name'],
    });
  });

  it('merges array items across samples, and leaves items out when every array was empty', () => {
    expect(inferSchema([[{ a: 1 }], [{ a: 2.5, b: 'x' }, { a: 3 }]])).toEqual({
      type: 'array',
      items: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'string' } }, required: ['a'] },
    });
    expect(inferSchema([[], []])).toEqual({ type: 'array' });
    expect(inferSchema([[1], 'x'])).toEqual({ type: ['array', 'string'], items: { type: 'integer' } });
  });

  it('grants a format only when every string matches it', () => {
    expect(inferSchema(['2026-01-01T10:00:00Z', '2026-06-30T23:59:59.5+02:00'])).toEqual({ type: 'string', format: 'date-time' });
    expect(inferSchema(['2026-01-01T10:00:00Z', 'yesterday'])).toEqual({ type: 'string' });
    // No time zone: not an RFC 3339 date-time, so ajv would refuse it.
    expect(inferSchema(['2026-01-01T10:00:00'])).toEqual({ type: 'string' });
    expect(inferSchema(['ada@example.org', 'bob@example.com'])).toEqual({ type: 'string', format: 'email' });
    expect(inferSchema(['https://example.org/a', 'ftp://host/file'])).toEqual({ type: 'string', format: 'uri' });
    // ajv calls these URIs; a person would not.
    expect(inferSchema(['status:ok', 'urn:isbn:123'])).toEqual({ type: 'string' });
    expect(inferSchema([{ at: '2026-01-01T10:00:00Z' }, { at: '2026-01-02T10:00:00Z' }, { at: 5 }])).toEqual({ type: 'object', properties: { at: { type: ['string', 'integer'], format: 'date-time' } }, required: ['at'] });
  });

  it('regression: grants a format only from two different strings (one e-mail seen once turned the next answer into an error)', () => {
    expect(inferSchema([{ contact: 'ops@example.org', site: 'https://example.org' }])).toEqual({ type: 'object', properties: { contact: { type: 'string' }, site: { type: 'string' } }, required: ['contact', 'site'] });
    expect(inferSchema(['2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z'])).toEqual({ type: 'string' });
    expect(inferSchema(['2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z', '2026-01-02T10:00:00Z'])).toEqual({ type: 'string', format: 'date-time' });
    // Past ENUM_MAX_VALUES distinct strings the distinct ones are no longer counted: still granted.
    expect(inferSchema(times(8, (i) => `u${i}@example.org`))).toEqual({ type: 'string', format: 'email' });
  });

  it('makes an enum only of a small closed set seen many times', () => {
    const conditions = ['sunny', 'cloudy', 'rain'];
    expect(inferSchema(times(ENUM_MIN_SAMPLES, (i) => conditions[i % 3]!))).toEqual({ type: 'string', enum: conditions });
    // Too few samples.
    expect(inferSchema(times(ENUM_MIN_SAMPLES - 1, (i) => conditions[i % 3]!))).toEqual({ type: 'string' });
    // Six distinct values.
    expect(inferSchema(times(60, (i) => `v${i % 6}`))).toEqual({ type: 'string' });
    // One value seen once: the set does not look closed.
    expect(inferSchema([...times(ENUM_MIN_SAMPLES, (i) => conditions[i % 2]!), 'hail'])).toEqual({ type: 'string' });
    // Not only strings: an enum would refuse the other types.
    expect(inferSchema([...times(ENUM_MIN_SAMPLES, (i) => conditions[i % 3]!), null])).toEqual({ type: ['string', 'null'] });
    // Array items count one by one.
    expect(inferSchema(times(7, () => ['on', 'off', 'on']))).toEqual({ type: 'array', items: { type: 'string', enum: ['on', 'off'] } });
  });

  it('accepts anything below MAX_DEPTH', () => {
    let deep: Json = 1;
    for (let i = 0; i < MAX_DEPTH + 5; i++) deep = [deep];
    let schema = inferSchema([deep]) as Record<string, unknown>;
    let depth = 0;
    while (schema.items !== undefined) {
      schema = schema.items as Record<string, unknown>;
      depth++;
    }
    expect(depth).toBe(MAX_DEPTH);
    expect(schema).toEqual({});
  });

  it('keeps odd keys as plain property names, and leaves __proto__ (which the engine drops) unnamed', () => {
    const sample = JSON.parse('{"__proto__": {"x": 1}, "constructor": 2, "hasOwnProperty": 3, "a b": 4}') as Json;
    const schema = inferSchema([sample]) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['constructor', 'hasOwnProperty', 'a b']);
    expect(schema.required).toEqual(['constructor', 'hasOwnProperty', 'a b']);
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
  });
});
