import { describe, expect, it } from 'vitest';
import { check, compileSchema, dialectOf, FULL_REASONS_NODES } from '../../../src/retrofit/validate.js';

describe('compileSchema', () => {
  it('compiles 2020-12 by default and validates', () => {
    const r = compileSchema({ type: 'integer' });
    expect(r.ok && r.dialect).toBe('2020-12');
    if (!r.ok) throw new Error(r.message);
    expect(r.validate(3)).toBe(true);
    expect(r.validate('3')).toBe(false);
  });

  it('uses draft-07 when $schema says so (definitions + $ref)', () => {
    const r = compileSchema({ $schema: 'http://json-schema.org/draft-07/schema#', definitions: { a: { type: 'string' } }, $ref: '#/definitions/a' });
    expect(r.ok && r.dialect).toBe('draft-07');
    if (r.ok) expect(r.validate(1)).toBe(false);
  });

  it('uses 2019-09 when $schema says so', () => {
    const r = compileSchema({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'array' });
    expect(r.ok && r.dialect).toBe('2019-09');
  });

  it('accepts draft-06 documents and a trailing # on the 2020-12 URI', () => {
    const six = compileSchema({ $schema: 'http://json-schema.org/draft-06/schema#', type: 'integer' });
    expect(six.ok && six.dialect).toBe('draft-07');
    if (six.ok) expect(six.validate('x')).toBe(false);
    const hashed = compileSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema#', type: 'string' });
    expect(hashed.ok && hashed.dialect).toBe('2020-12');
  });

  it('reports uncompilable schemas, unknown dialects and network refs without throwing', () => {
    expect(compileSchema({ type: 'objekt' }).ok).toBe(false);
    const drafted = compileSchema({ $schema: 'http://json-schema.org/draft-04/schema#' });
    expect(drafted.ok).toBe(false);
    if (!drafted.ok) expect(drafted.message).toContain('unsupported JSON Schema dialect');
    expect(compileSchema({ $ref: 'http://example.com/x.json' }).ok).toBe(false);
    expect(dialectOf({ $schema: 42 })).toBeUndefined();
  });

  it('validates formats', () => {
    const r = compileSchema({ type: 'string', format: 'email' });
    if (!r.ok) throw new Error(r.message);
    expect(r.validate('nope')).toBe(false);
    expect(r.validate('a@b.co')).toBe(true);
  });

  it('compiles two schemas with the same $id', () => {
    expect(compileSchema({ $id: 'https://example.com/same.json', type: 'string' }).ok).toBe(true);
    expect(compileSchema({ $id: 'https://example.com/same.json', type: 'number' }).ok).toBe(true);
  });

  it('describes errors with pointers, deduplicated', () => {
    const r = compileSchema({ type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false });
    if (!r.ok) throw new Error(r.message);
    const verdict = check(r.validate, { a: 'x', b: 1 });
    const lines = verdict.ok ? [] : verdict.reasons;
    expect(lines).toContain('/a must be integer');
    expect(lines.some((l) => l.startsWith('/ must NOT have additional properties "b"'))).toBe(true);
  });

  it('stops at a value\'s first problem, and lists them all only for a small value', () => {
    const r = compileSchema({ type: 'array', items: { type: 'object', required: ['name', 'id'] } });
    if (!r.ok) throw new Error(r.message);
    // The verdict alone: ajv stopped at the first problem.
    expect(r.validate([{}, {}, {}])).toBe(false);
    expect(r.validate.errors).toHaveLength(1);
    const small = check(r.validate, [{}, {}, {}]);
    expect(small.ok ? [] : small.reasons).toEqual([
      "/0 must have required property 'name'",
      "/0 must have required property 'id'",
      "/1 must have required property 'name'",
      "/1 must have required property 'id'",
      "/2 must have required property 'name'",
      "/2 must have required property 'id'",
    ]);
    // An upstream's array that fails everywhere: its first problem, not millions of error objects.
    const large = check(r.validate, Array.from({ length: FULL_REASONS_NODES }, () => ({})));
    expect(large.ok ? [] : large.reasons).toEqual(["/0 must have required property 'name'", `(only the first problem is listed: the value holds more than ${FULL_REASONS_NODES} values)`]);
  });

  it('lists every problem of a value without removing anything from it, whatever the validator removes', () => {
    const r = compileSchema({ type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, additionalProperties: false }, 'all');
    if (!r.ok) throw new Error(r.message);
    const value = { a: 'x', b: 'y', extra: 1 };
    const verdict = check(r.validate, value);
    expect(verdict.ok ? [] : verdict.reasons).toEqual(['/a must be integer', '/b must be integer']);
    // The first validation removed `extra` (ajv's semantics; callers hand it a copy); the listing run changed nothing more.
    expect(value).toEqual({ a: 'x', b: 'y' });
  });
});
