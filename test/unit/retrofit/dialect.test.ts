/**
 * Draft-04/06/07 and 2019-09 schemas rewritten to 2020-12 accept and reject the same instances (issue 26): a
 * corpus of schemas using every rewritten form (definitions, recursive refs, tuple items, additionalItems,
 * dependencies in both forms, formats, draft-04 exclusive flags), and for each, fast-check instances built
 * from the schema's own names and values (so both valid and invalid ones occur) judged by ajv's validator of
 * the old draft and by its 2020-12 validator on the rewrite.
 */
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json, JsonObject } from '../../../src/json.js';
import { DIALECT_2020_12, draftOf, needsRewrite, to202012 } from '../../../src/retrofit/dialect.js';

// CommonJS default exports, as src/retrofit/validate.ts takes ajv-formats.
const AjvDraft04 = ((AjvDraft04Module as unknown as { default?: unknown }).default ?? AjvDraft04Module) as new (options: object) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const D7 = 'http://json-schema.org/draft-07/schema#';
const D4 = 'http://json-schema.org/draft-04/schema#';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';

const CORPUS: Record<string, JsonObject> = {
  definitions: {
    $schema: D7,
    type: 'object',
    definitions: { name: { type: 'string', minLength: 2 }, age: { type: 'integer', minimum: 0 } },
    properties: { name: { $ref: '#/definitions/name' }, age: { $ref: '#/definitions/age' } },
    required: ['name'],
  },
  recursive: {
    $schema: D7,
    definitions: { node: { type: 'object', properties: { v: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/definitions/node' } } }, required: ['v'] } },
    $ref: '#/definitions/node',
  },
  tuple: { $schema: D7, type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
  tupleOpen: { $schema: D7, type: 'array', items: [{ type: 'string' }, { enum: ['a', 'b'] }] },
  tupleRest: { $schema: D7, type: 'array', items: [{ type: 'boolean' }], additionalItems: { type: 'number' }, minItems: 1 },
  additionalItemsAlone: { $schema: D7, type: 'array', items: { type: 'integer' }, additionalItems: false },
  dependenciesArray: { $schema: D7, type: 'object', properties: { card: { type: 'string' }, billing: { type: 'string' } }, dependencies: { card: ['billing'] } },
  dependenciesSchema: {
    $schema: D7,
    type: 'object',
    properties: { kind: { enum: ['a', 'b'] }, n: { type: 'integer' } },
    dependencies: { kind: { properties: { n: { minimum: 3 } }, required: ['n'] }, n: ['kind'] },
  },
  formats: { $schema: D7, type: 'object', properties: { at: { type: 'string', format: 'date-time' }, mail: { type: 'string', format: 'email' }, site: { type: 'string', format: 'uri' } } },
  refIntoTuple: { $schema: D7, type: 'object', definitions: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } }, properties: { p: { $ref: '#/definitions/pair' }, first: { $ref: '#/definitions/pair/items/0' } } },
  propertyNamedDefinitions: { $schema: D7, type: 'object', properties: { definitions: { type: 'integer' } }, definitions: { x: { type: 'string' } }, additionalProperties: { $ref: '#/definitions/x' } },
  draft04: { $schema: D4, type: 'object', properties: { n: { type: 'number', maximum: 10, exclusiveMaximum: true, minimum: 0, exclusiveMinimum: false } } },
  draft2019Tuple: { $schema: D2019, type: 'array', items: [{ type: 'integer' }], additionalItems: { type: 'string' } },
  draft2019Recursive: {
    $schema: D2019,
    $recursiveAnchor: true,
    type: 'object',
    properties: { name: { type: 'string' }, kids: { type: 'array', items: { $recursiveRef: '#' } } },
    required: ['name'],
  },
  combinators: { $schema: D7, anyOf: [{ type: 'string', maxLength: 3 }, { type: 'array', items: [{ const: 1 }] }], not: { const: 'no' } },
};

/** ajv for the draft a schema declares. */
function oldValidator(schema: JsonObject): (value: unknown) => boolean {
  const draft = draftOf(schema);
  const options = { strict: false, allErrors: true, logger: false as const, validateFormats: true };
  const ajv = draft === 'draft-04' ? new AjvDraft04(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (v) => validate(v) === true;
}

function newValidator(schema: JsonObject): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (v) => validate(v) === true;
}

/** Values that appear in the schema (names, enum and const members, bounds): instances near the edges. */
function valuesIn(schema: Json, out: { keys: Set<string>; values: Json[] } = { keys: new Set(), values: [] }, depth = 0): { keys: Set<string>; values: Json[] } {
  if (depth > 20) return out;
  if (Array.isArray(schema)) for (const s of schema) valuesIn(s, out, depth + 1);
  else if (schema !== null && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' && v !== null && typeof v === 'object' && !Array.isArray(v)) for (const name of Object.keys(v)) out.keys.add(name);
      if (k === 'dependencies' && v !== null && typeof v === 'object') for (const name of Object.keys(v)) out.keys.add(name);
      if (k === 'enum' && Array.isArray(v)) out.values.push(...v);
      if (k === 'const') out.values.push(v);
      if (typeof v === 'number') out.values.push(v, v - 1, v + 1, v + 0.5);
      valuesIn(v, out, depth + 1);
    }
  }
  return out;
}

/** Instances for `schema`: its own keys and values mixed with random JSON, nested a little. */
function instances(schema: JsonObject): fc.Arbitrary<unknown> {
  const { keys, values } = valuesIn(schema);
  const scalar = fc.oneof(
    fc.constantFrom<Json>(...values, 'no', 'ab', 'abcd', '2026-01-01T00:00:00Z', 'a@b.co', 'https://x.example/y', 'not a date', 0, 3, -1, true, null),
    fc.string({ maxLength: 5 }),
    fc.integer({ min: -5, max: 20 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -20, max: 20 }),
    fc.boolean(),
  );
  const key = keys.size > 0 ? fc.constantFrom(...keys) : fc.string({ maxLength: 3 });
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    ),
  }));
  // Flat objects and arrays of the schema's own values reach the valid side; nested ones the rest.
  return fc.oneof(value, fc.dictionary(key, scalar, { maxKeys: 3 }), fc.array(scalar, { maxLength: 4 }), fc.dictionary(key, fc.oneof(fc.array(scalar, { maxLength: 3 }), fc.dictionary(key, scalar, { maxKeys: 3 })), { maxKeys: 3 }));
}

describe('to202012', () => {
  it.each(Object.entries(CORPUS))('%s: the same instances accepted and rejected before and after', (name, schema) => {
    expect(needsRewrite(schema)).toBe(true);
    const rewritten = to202012(schema);
    if (rewritten === undefined || typeof rewritten === 'boolean') throw new Error('no rewrite');
    expect(rewritten.$schema).toBe(DIALECT_2020_12);
    // (A property may be called `definitions`: that one is no keyword.)
    if (name !== 'propertyNamedDefinitions') expect(JSON.stringify(rewritten)).not.toMatch(/"(definitions|dependencies|additionalItems|\$recursiveRef|\$recursiveAnchor)":/);
    const before = oldValidator(schema);
    const after = newValidator(rewritten);
    let valid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(instances(schema), (instance) => {
        const verdict = before(instance);
        if (verdict) valid++;
        else invalid++;
        expect(after(instance)).toBe(verdict);
      }),
      { numRuns: 400, seed: 26 },
    );
    // The instances reached both sides of the schema, or the comparison proves little.
    expect({ valid: valid > 0, invalid: invalid > 0 }).toEqual({ valid: true, invalid: true });
  });

  it('leaves 2020-12 schemas, and schemas without a $schema that use no older form, alone', () => {
    expect(needsRewrite({ $schema: DIALECT_2020_12, type: 'object', $defs: {} })).toBe(false);
    expect(needsRewrite({ type: 'object', properties: { a: { type: 'string' } } })).toBe(false);
    expect(needsRewrite({ type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } })).toBe(true);
    expect(needsRewrite({ type: 'object', definitions: { a: {} } })).toBe(true);
  });

  it('renames a $ref through definitions only where definitions is the keyword', () => {
    const out = to202012(CORPUS.propertyNamedDefinitions!) as JsonObject;
    expect(out.properties).toEqual({ definitions: { type: 'integer' } });
    expect(out.additionalProperties).toEqual({ $ref: '#/$defs/x' });
    expect((to202012(CORPUS.refIntoTuple!) as JsonObject).properties).toEqual({ p: { $ref: '#/$defs/pair' }, first: { $ref: '#/$defs/pair/prefixItems/0' } });
  });

  it('leaves a schema nested deeper than it rewrites whole (undefined), never half-done', () => {
    let deep: JsonObject = { type: 'string' };
    for (let i = 0; i < 200; i++) deep = { type: 'array', items: deep };
    expect(to202012({ $schema: D7, ...deep })).toBeUndefined();
  });
});
