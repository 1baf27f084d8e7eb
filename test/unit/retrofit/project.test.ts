/**
 * The projection table of issue 4: schemas × revisions. Every wrapped schema must compile (with our ajv and
 * with the v1 SDK client's validator) and accept exactly the wrapped values the original accepts.
 */
import { describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Json, JsonObject, JsonSchema } from '../../../src/json.js';
import { rewriteToolsList, rewriteToolCall } from '../../../src/retrofit/engine.js';
import { compileUpstreamPolicy } from '../../../src/policy/compile.js';
import { compileSchema } from '../../../src/retrofit/validate.js';
import { projectionFor } from '../../../src/retrofit/project.js';
import { asObjectSchema, wrapSchema } from '../../../src/retrofit/wrap.js';
import { upstreamWith } from './helpers.js';

interface Row {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly good: Json[];
  readonly bad: Json[];
}

const tree = {
  $defs: { node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['name'] } },
  $ref: '#/$defs/node',
};

const ROWS: Row[] = [
  { name: 'array', schema: { type: 'array', items: { type: 'integer' } }, good: [[], [1, 2]], bad: [['x'], { a: 1 }] },
  { name: 'scalar', schema: { type: 'integer' }, good: [17, 0], bad: ['17', 1.5] },
  { name: 'nullable', schema: { type: ['string', 'null'] }, good: ['a', null], bad: [1] },
  { name: 'object or null', schema: { type: ['object', 'null'], properties: { a: { type: 'number' } } }, good: [{ a: 1 }, null], bad: [{ a: 'x' }, 3] },
  { name: 'anyOf object|array', schema: { anyOf: [{ type: 'object', required: ['id'] }, { type: 'array' }] }, good: [{ id: 1 }, [1]], bad: [{}, 'x'] },
  { name: 'recursive $defs', schema: tree, good: [{ name: 'a', children: [{ name: 'b', children: [] }] }], bad: [{ name: 'a', children: [{ children: [] }] }, []] },
  {
    name: '$ref to root',
    schema: { type: 'array', items: { anyOf: [{ type: 'integer' }, { $ref: '#' }] } },
    good: [[1, [2, [3]]]],
    bad: [[1, ['x']]],
  },
  {
    name: '$id-scoped subtree',
    schema: {
      type: 'array',
      items: { $id: 'https://example.com/item.json', $defs: { id: { type: 'integer' } }, type: 'object', properties: { id: { $ref: '#/$defs/id' } } },
    },
    good: [[{ id: 1 }]],
    bad: [[{ id: 'x' }]],
  },
  {
    name: 'draft-07 definitions',
    schema: { $schema: 'http://json-schema.org/draft-07/schema#', definitions: { n: { type: 'number' } }, type: 'array', items: { $ref: '#/definitions/n' } },
    good: [[1.5]],
    bad: [['x']],
  },
  {
    name: 'data keywords and names are not rewritten',
    schema: {
      type: 'array',
      items: { type: 'object', properties: { $ref: { const: '#/x' }, definitions: { type: 'string', default: '#' } } },
    },
    good: [[{ $ref: '#/x', definitions: 'd' }]],
    bad: [[{ $ref: '#/y' }]],
  },
  {
    name: '2019-09 $recursiveRef',
    schema: { $schema: 'https://json-schema.org/draft/2019-09/schema', $recursiveAnchor: true, type: 'array', items: { anyOf: [{ type: 'integer' }, { $recursiveRef: '#' }] } },
    good: [[1, [2, [3]]]],
    bad: [[1, ['x']]],
  },
  {
    name: '2020-12 $dynamicRef',
    schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', $dynamicAnchor: 'node', type: 'array', items: { anyOf: [{ type: 'integer' }, { $dynamicRef: '#node' }] } },
    good: [[1, [2, [3]]]],
    bad: [[1, ['x']]],
  },
  { name: 'boolean true', schema: true, good: [1, 'a', null], bad: [] },
  { name: 'object root (as is)', schema: { type: 'object', properties: { a: { type: 'string' } } }, good: [{ a: 'x' }], bad: [{ a: 1 }] },
];

const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

function expectedProjection(revision: string, schema: JsonSchema): 'as-is' | 'wrap' | 'drop' {
  if (revision >= '2026-07-28') return 'as-is';
  if (revision < '2025-06-18') return 'drop';
  return typeof schema === 'object' && schema.type === 'object' ? 'as-is' : 'wrap';
}

const v1 = new AjvJsonSchemaValidator();

describe.each(ROWS)('$name', ({ schema, good, bad }) => {
  const isObject = typeof schema === 'object' && schema.type === 'object';

  it('wrapped schema compiles and accepts exactly the wrapped values the original accepts', () => {
    const original = compileSchema(schema);
    const wrapped = compileSchema(wrapSchema(schema));
    if (!original.ok) throw new Error(original.message);
    if (!wrapped.ok) throw new Error(wrapped.message);
    for (const value of [...good, ...bad]) {
      expect(wrapped.validate({ result: value }), JSON.stringify(value)).toBe(original.validate(value));
    }
    for (const value of good) expect(original.validate(value)).toBe(true);
    for (const value of bad) expect(original.validate(value)).toBe(false);
    expect(wrapped.validate({})).toBe(false);
  });

  it('the v1 SDK client validator compiles the wrapped schema and agrees', () => {
    const wrapped = wrapSchema(schema);
    if ('$schema' in wrapped && wrapped.$schema !== 'http://json-schema.org/draft-07/schema#') return;
    const validate = v1.getValidator(wrapped as Parameters<typeof v1.getValidator>[0]);
    for (const value of good) expect(validate({ result: value }).valid).toBe(true);
    for (const value of bad) expect(validate({ result: value }).valid).toBe(false);
  });

  it.each(REVISIONS)('tools/list and tools/call agree for %s', (revision) => {
    const policy = upstreamWith({ t: { outputSchema: schema } });
    const list = rewriteToolsList({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }, policy, revision);
    const tool = (list.result.tools as JsonObject[])[0]!;
    const projection = expectedProjection(revision, schema);
    expect(projectionFor(revision, isObject, 'wrap')).toBe(projection);
    if (projection === 'drop') expect(tool).not.toHaveProperty('outputSchema');
    else if (projection === 'as-is') expect(tool.outputSchema).toEqual(asObjectSchema(schema));
    else expect(tool.outputSchema).toEqual(wrapSchema(schema));
    // Every client's Tool type wants an object there (the v2 SDK's at 2026-07-28 too): never a boolean schema.
    if (projection !== 'drop') expect(tool.outputSchema).toBeTypeOf('object');
    // Object-only clients (v1 SDK) accept the projected list.
    if (revision !== '2026-07-28') expect(ListToolsResultSchema.safeParse(list.result).success).toBe(true);

    const value = good[0]!;
    const call = rewriteToolCall({ content: [{ type: 'text', text: JSON.stringify(value) }] }, 't', policy, revision);
    expect(call.outcome.outcome).toBe('extracted');
    if (projection === 'drop') expect(call.result).not.toHaveProperty('structuredContent');
    else expect(call.result.structuredContent).toEqual(projection === 'wrap' ? { result: value } : value);
    expect(call.result.content).toEqual([{ type: 'text', text: JSON.stringify(value) }]);
  });
});

describe('legacyRoots: drop', () => {
  it('removes non-object schemas and their values for object-only clients, JSON left in text', () => {
    const policy = upstreamWith({ t: { outputSchema: { type: 'array' }, legacyRoots: 'drop' } });
    const list = rewriteToolsList({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }, policy, '2025-11-25');
    expect((list.result.tools as JsonObject[])[0]).not.toHaveProperty('outputSchema');
    const call = rewriteToolCall({ content: [{ type: 'text', text: '[1,2]' }] }, 't', policy, '2025-11-25');
    expect(call.result).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
    const modern = rewriteToolCall({ content: [{ type: 'text', text: '[1,2]' }] }, 't', policy, '2026-07-28');
    expect(modern.result.structuredContent).toEqual([1, 2]);
  });
});

describe('wrapSchema', () => {
  it('hoists $schema and rewrites # and #/ refs but not anchors or external refs', () => {
    const wrapped = wrapSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      items: { anyOf: [{ $ref: '#' }, { $ref: '#/$defs/a' }, { $ref: '#anchor' }, { $ref: 'other.json#/x' }] },
      $defs: { a: { $anchor: 'anchor', type: 'string' } },
    });
    expect(wrapped.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const inner = (wrapped.properties as JsonObject).result as JsonObject;
    expect(inner).not.toHaveProperty('$schema');
    expect((inner.items as JsonObject).anyOf).toEqual([
      { $ref: '#/properties/result' },
      { $ref: '#/properties/result/$defs/a' },
      { $ref: '#anchor' },
      { $ref: 'other.json#/x' },
    ]);
  });

  it('turns boolean schemas into objects (v1 clients require object property schemas)', () => {
    expect(wrapSchema(true).properties).toEqual({ result: {} });
    expect(wrapSchema(false).properties).toEqual({ result: { not: {} } });
  });

  it('keeps a root $id resource unrewritten', () => {
    const schema = { $id: 'https://example.com/s.json', type: 'array', items: { $ref: '#/$defs/x' }, $defs: { x: { type: 'string' } } };
    const wrapped = wrapSchema(schema);
    expect((wrapped.properties as JsonObject).result).toEqual(schema);
    const compiled = compileSchema(wrapped);
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.validate({ result: ['a'] })).toBe(true);
    expect(compiled.validate({ result: [1] })).toBe(false);
  });
});

describe('compileUpstreamPolicy precomputes the wrapped schema', () => {
  it('for non-object roots only', () => {
    const { policy } = compileUpstreamPolicy({ name: 'u', tools: { a: { outputSchema: { type: 'array' } }, o: { outputSchema: { type: 'object' } } } }, { onInvalid: 'error', legacyRoots: 'wrap', coerce: true });
    expect(policy.resolve('a')?.compiled?.output?.wrapped).toEqual(wrapSchema({ type: 'array' }));
    expect(policy.resolve('o')?.compiled?.output?.wrapped).toBeUndefined();
  });
});
