import { describe, expect, it } from 'vitest';
import { compileSchema, describeErrors, dialectOf } from '../../../src/retrofit/validate.js';

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
    r.validate({ a: 'x', b: 1 });
    const lines = describeErrors(r.validate.errors);
    expect(lines).toContain('/a must be integer');
    expect(lines.some((l) => l.startsWith('/ must NOT have additional properties "b"'))).toBe(true);
  });
});
