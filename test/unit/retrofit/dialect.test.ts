/**
 * Draft-04/06/07 and 2019-09 schemas rewritten to 2020-12 accept and reject the same instances (issue 26): a
 * corpus of schemas using every rewritten form (definitions, recursive refs, tuple items, additionalItems,
 * dependencies in both forms, formats, draft-04 exclusive flags), and for each, fast-check instances built
 * from the schema's own names and values (so both valid and invalid ones occur) judged by ajv's validator of
 * the old draft and by its 2020-12 validator on the rewrite.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { DIALECT_2020_12, needsRewrite, to202012 } from '../../../src/retrofit/dialect.js';
import { expectSameVerdicts } from './dialect-equivalence.js';

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

describe('to202012', () => {
  it.each(Object.entries(CORPUS))('%s: the same instances accepted and rejected before and after', (name, schema) => {
    expect(needsRewrite(schema)).toBe(true);
    const rewritten = to202012(schema);
    if (rewritten === undefined || typeof rewritten === 'boolean') throw new Error('no rewrite');
    expect(rewritten.$schema).toBe(DIALECT_2020_12);
    // (A property may be called `definitions`: that one is no keyword.)
    if (name !== 'propertyNamedDefinitions') expect(JSON.stringify(rewritten)).not.toMatch(/"(definitions|dependencies|additionalItems|\$recursiveRef|\$recursiveAnchor)":/);
    expectSameVerdicts(schema, rewritten, { seed: 26 });
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
