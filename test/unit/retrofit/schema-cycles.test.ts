/**
 * The detector of schemas whose validation would recurse without end (src/retrofit/schema-cycles.ts): a
 * `$ref` that leads back to the same schema at the same place in the instance is found, with where and
 * through what; a recursive tree schema, which descends into the instance at each turn, is not.
 */
import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { DEFAULTS } from '../../../src/config/types.js';
import { compileTool } from '../../../src/retrofit/compiled.js';
import { schemaCycles } from '../../../src/retrofit/schema-cycles.js';
import { check } from '../../../src/retrofit/validate.js';

const defaults = { onInvalid: DEFAULTS.onInvalid, legacyRoots: DEFAULTS.legacyRoots, coerce: DEFAULTS.coerce };
const summary = (schema: JsonObject) => schemaCycles(schema).map((c) => ({ path: c.path, ref: c.ref, cycle: c.cycle.join(' -> ') }));

describe('schemas that recurse at the same place', () => {
  test('{type: object, $ref: "#"}: the whole message', () => {
    expect(schemaCycles({ type: 'object', $ref: '#' })).toEqual([
      { path: [], ref: '$ref "#"', cycle: ['#', '#'], message: '$ref "#" leads back to this schema at the same place in the result (# -> #): validating anything would recurse without end' },
    ]);
  });

  test('{$ref: "#"}, and through allOf', () => {
    expect(summary({ $ref: '#' })).toEqual([{ path: [], ref: '$ref "#"', cycle: '# -> #' }]);
    expect(summary({ allOf: [{ $ref: '#' }] })).toEqual([{ path: [], ref: '$ref "#"', cycle: '# -> #/allOf/0 -> #' }]);
  });

  test('a property whose $ref names itself is found at that property', () => {
    expect(summary({ type: 'object', properties: { a: { $ref: '#/properties/a' } } })).toEqual([
      { path: ['properties', 'a'], ref: '$ref "#/properties/a"', cycle: '#/properties/a -> #/properties/a' },
    ]);
  });

  test('two definitions referring to each other, draft-07 definitions and pointer escapes included', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', $ref: '#/definitions/a~1b', definitions: { 'a/b': { $ref: '#/definitions/c' }, c: { anyOf: [{ type: 'string' }, { $ref: '#/definitions/a~1b' }] } } };
    expect(summary(schema)).toEqual([
      { path: ['definitions', 'a/b'], ref: '$ref "#/definitions/a~1b"', cycle: '#/definitions/a~1b -> #/definitions/c -> #/definitions/c/anyOf/1 -> #/definitions/a~1b' },
    ]);
  });

  test('every keyword that applies to the same place closes a cycle: not, if/then/else, dependentSchemas, anchors, dynamic and recursive refs', () => {
    expect(summary({ not: { $ref: '#' } })).toHaveLength(1);
    expect(summary({ if: { $ref: '#' } })).toHaveLength(1);
    expect(summary({ if: { type: 'string' }, then: { $ref: '#' } })).toHaveLength(1);
    expect(summary({ if: { type: 'string' }, else: { $ref: '#' } })).toHaveLength(1);
    expect(summary({ dependentSchemas: { a: { $ref: '#' } } })).toHaveLength(1);
    expect(summary({ $schema: 'http://json-schema.org/draft-07/schema#', dependencies: { a: { $ref: '#' }, b: ['c'] } })).toHaveLength(1);
    expect(summary({ $ref: '#/$defs/n', $defs: { n: { $anchor: 'n', oneOf: [{ $ref: '#n' }] } } })).toEqual([
      { path: ['$defs', 'n'], ref: '$ref "#n"', cycle: '#/$defs/n -> #/$defs/n/oneOf/0 -> #/$defs/n' },
    ]);
    expect(summary({ $dynamicAnchor: 'meta', allOf: [{ $dynamicRef: '#meta' }] })).toEqual([{ path: [], ref: '$dynamicRef "#meta"', cycle: '# -> #/allOf/0 -> #' }]);
    expect(summary({ $schema: 'https://json-schema.org/draft/2019-09/schema', $recursiveAnchor: true, $recursiveRef: '#' })).toEqual([{ path: [], ref: '$recursiveRef "#"', cycle: '# -> #' }]);
  });

  test('refs between embedded resources (as the loader bundles schema files) are followed, and named by file', () => {
    const a = 'https://mcp-retrofit.invalid/schema-files/0123456789abcdef/a.json';
    const b = 'https://mcp-retrofit.invalid/schema-files/fedcba9876543210/b.json';
    const schema = { $ref: b, $defs: { 'mcp-retrofit:b.json': { $id: b, $ref: a }, 'mcp-retrofit:a.json': { $id: a, $ref: b } } };
    expect(summary(schema)).toEqual([{ path: ['$defs', 'mcp-retrofit:b.json'], ref: '$ref "b.json"', cycle: 'b.json# -> a.json# -> b.json#' }]);
    const inside = { properties: { y: { $ref: b } }, $defs: { 'mcp-retrofit:b.json': { $id: b, properties: { x: { allOf: [{ $ref: `${b}#/properties/x` }] } } } } };
    expect(summary(inside)).toEqual([
      { path: ['$defs', 'mcp-retrofit:b.json', 'properties', 'x'], ref: '$ref "b.json#/properties/x"', cycle: 'b.json#/properties/x -> b.json#/properties/x/allOf/0 -> b.json#/properties/x' },
    ]);
  });

  test('each cycle once, however many ways lead into it', () => {
    expect(summary({ anyOf: [{ $ref: '#/$defs/x' }, { $ref: '#/$defs/x' }], $defs: { x: { allOf: [{ $ref: '#/$defs/x' }] } } })).toEqual([
      { path: ['$defs', 'x'], ref: '$ref "#/$defs/x"', cycle: '#/$defs/x -> #/$defs/x/allOf/0 -> #/$defs/x' },
    ]);
  });
});

describe('schemas that recurse into the value are sound', () => {
  const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }, required: ['name'] };

  test('a tree has no cycle, and compiles and validates nested values', () => {
    expect(schemaCycles(tree)).toEqual([]);
    const { tool, errors } = compileTool({ outputSchema: tree }, defaults);
    expect(errors).toEqual([]);
    const valid = (v: unknown) => check(tool.output!.validate, v).ok;
    expect(valid({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] })).toBe(true);
    expect(valid({ name: 'a', children: [{ name: 'b', children: [{ title: 'c' }] }] })).toBe(false);
  });

  test('refs under keywords that descend (additionalProperties, prefixItems, contains, propertyNames, unevaluated*) break a cycle', () => {
    for (const schema of [
      { additionalProperties: { $ref: '#' } },
      { patternProperties: { '^x': { $ref: '#' } } },
      { prefixItems: [{ $ref: '#' }] },
      { contains: { $ref: '#' } },
      { propertyNames: { $ref: '#' } },
      { unevaluatedProperties: { $ref: '#' } },
      { unevaluatedItems: { $ref: '#' } },
      { anyOf: [{ type: 'string' }, { type: 'array', items: { $ref: '#' } }] },
    ]) expect(schemaCycles(schema as JsonObject)).toEqual([]);
    const { tool, errors } = compileTool({ outputSchema: { type: 'object', unevaluatedProperties: { $ref: '#' } } }, defaults);
    expect(errors).toEqual([]);
    expect(check(tool.output!.validate, { a: { b: {} } }).ok).toBe(true);
    expect(check(tool.output!.validate, { a: { b: 1 } }).ok).toBe(false);
  });

  test('a cycle only in $defs that nothing applies harms no validation, and is not reported', () => {
    expect(schemaCycles({ type: 'object', $defs: { x: { $ref: '#/$defs/x' } } })).toEqual([]);
  });

  test('a ref to nothing of the schema, or to a boolean, is no edge', () => {
    expect(schemaCycles({ $ref: 'https://example.com/other.json', allOf: [{ $ref: '#/$defs/t' }], $defs: { t: true } })).toEqual([]);
  });

  test('iterative: a chain of 20,000 refs that closes on itself is found (a recursive walk would overflow the stack)', () => {
    const n = 20_000;
    const defs: Record<string, JsonObject> = {};
    for (let i = 0; i < n; i++) defs[`d${i}`] = { $ref: `#/$defs/d${(i + 1) % n}` };
    const found = schemaCycles({ $ref: '#/$defs/d0', $defs: defs });
    expect(found.map((c) => [c.path, c.cycle])).toEqual([
      [['$defs', 'd0'], ['#/$defs/d0', '#/$defs/d1', '#/$defs/d2', '#/$defs/d3', '#/$defs/d4', `… ${n - 8} more …`, `#/$defs/d${n - 3}`, `#/$defs/d${n - 2}`, `#/$defs/d${n - 1}`, '#/$defs/d0']],
    ]);
    expect(found[0]!.message.length).toBeLessThan(300);
  });

  test('iterative, and linear in memory: a schema nested 20,000 deep whose innermost $ref leads back to the root', () => {
    const n = 20_000;
    let schema: JsonObject = { $ref: '#' };
    for (let i = 0; i < n; i++) schema = { not: schema };
    const found = schemaCycles(schema);
    expect(found.map((c) => [c.path, c.ref, c.cycle.length, c.cycle[1]])).toEqual([[[], '$ref "#"', 10, '#/not']]);
  });

  test('at most ten cycles are reported', () => {
    const defs: Record<string, JsonObject> = {};
    for (let i = 0; i < 50; i++) defs[`d${i}`] = { $ref: `#/$defs/d${i}` };
    expect(schemaCycles({ anyOf: Object.keys(defs).map((k) => ({ $ref: `#/$defs/${k}` })), $defs: defs })).toHaveLength(10);
  });
});

describe('compileTool refuses such an outputSchema', () => {
  test('at the recursing schema, with the detector\'s message and no stack overflow from ajv', () => {
    const { tool, errors } = compileTool({ outputSchema: { type: 'object', properties: { a: { $ref: '#/properties/a' } } } }, defaults);
    expect(tool.output).toBeUndefined();
    expect(errors).toEqual([
      {
        path: ['outputSchema', 'properties', 'a'],
        message: '$ref "#/properties/a" leads back to this schema at the same place in the result (#/properties/a -> #/properties/a): validating anything would recurse without end',
        atKey: true,
      },
    ]);
  });
});
