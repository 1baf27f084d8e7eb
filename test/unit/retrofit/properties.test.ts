/**
 * fast-check properties: extraction never throws and never yields structuredContent that fails the schema;
 * a wrapped schema accepts exactly the wrapped values the original accepts.
 */
import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import type { Json, JsonObject, JsonSchema } from '../../../src/json.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import { check, compileSchema } from '../../../src/retrofit/validate.js';
import { wrapSchema } from '../../../src/retrofit/wrap.js';
import { upstreamWith } from './helpers.js';

const SCHEMAS: JsonSchema[] = [
  { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, required: ['a'] },
  { type: 'array', items: { type: 'number' } },
  { type: 'integer' },
  { type: 'string', maxLength: 5 },
  { type: ['boolean', 'null'] },
  { anyOf: [{ type: 'object', required: ['id'] }, { type: 'array', maxItems: 2 }] },
  { $defs: { t: { type: 'object', properties: { k: { type: 'array', items: { $ref: '#/$defs/t' } } } } }, $ref: '#/$defs/t' },
];

/** Text that often looks like JSON, Python, YAML or fences, and sometimes is plain noise. */
const jsonish = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', "'", ',', ':', ' ', '\n', '\\', 'a', '1', '`', 'True', 'null', '-') }),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.tuple(fc.string(), fc.jsonValue(), fc.string()).map(([a, v, b]) => `${a}${JSON.stringify(v)}${b}`),
  fc.jsonValue().map((v) => '```json\n' + JSON.stringify(v, null, 2) + '\n```'),
  fc.jsonValue().map((v) => JSON.stringify(v).replace(/"/g, "'").replace(/true/g, 'True')),
  fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)),
);

const resultOf = fc.array(jsonish, { minLength: 0, maxLength: 3 }).map((texts): JsonObject => ({ content: texts.map((text) => ({ type: 'text', text })) }));

const REVISIONS = ['2025-03-26', '2025-11-25', '2026-07-28'];
const policies = SCHEMAS.map((schema) => upstreamWith({ t: { outputSchema: schema } }));
const validators = SCHEMAS.map((schema) => {
  const plain = compileSchema(schema);
  const wrapped = compileSchema(wrapSchema(schema));
  if (!plain.ok || !wrapped.ok) throw new Error('fixture schema does not compile');
  return { plain: plain.validate, wrapped: wrapped.validate, isObject: typeof schema === 'object' && schema.type === 'object' };
});

describe('extraction on arbitrary text', () => {
  it('never throws and never yields structuredContent that fails the schema', () => {
    fc.assert(
      fc.property(resultOf, fc.integer({ min: 0, max: SCHEMAS.length - 1 }), fc.constantFrom(...REVISIONS), (result, i, revision) => {
        const { result: out, outcome } = rewriteToolCall(result, 't', policies[i]!, revision);
        expect(['extracted', 'invalid', 'unparseable']).toContain(outcome.outcome);
        if (out.structuredContent === undefined) return;
        expect(out.isError).toBeUndefined();
        expect(revision).not.toBe('2025-03-26');
        const v = validators[i]!;
        const value = out.structuredContent as Json;
        if (revision === '2026-07-28' || v.isObject) expect(check(v.plain, value).ok).toBe(true);
        else expect(check(v.wrapped, value).ok).toBe(true);
      }),
      { numRuns: 600 },
    );
  });
});

const small = fc.jsonValue({ maxDepth: 1 }).map((v) => v as Json);

/** Small schemas: scalars, arrays, objects, anyOf, enum, const; optionally behind $defs/$ref. */
const schemaArb: fc.Arbitrary<JsonObject> = fc.letrec<{ s: JsonObject }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<JsonObject>({ type: 'integer' }, { type: 'string' }, { type: 'number', minimum: 0 }, { type: 'boolean' }, { type: 'null' }, {}),
    fc.record({ type: fc.constant('array'), items: tie('s') }),
    fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('s'), { maxKeys: 3 }), required: fc.subarray(['a', 'b']) }),
    fc.record({ anyOf: fc.array(tie('s'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ enum: fc.array(small, { minLength: 1, maxLength: 3 }) }),
    fc.record({ const: small }),
  ),
})).s;

const withDefs = fc.oneof(
  schemaArb,
  schemaArb.map((def): JsonObject => ({ $defs: { d: def }, anyOf: [{ $ref: '#/$defs/d' }, { type: 'array', items: { $ref: '#' } }] })),
);

describe('wrapping', () => {
  it('a wrapped schema accepts exactly the wrapped values the original accepts', () => {
    fc.assert(
      fc.property(withDefs, fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 8 }), (schema, values) => {
        const plain = compileSchema(schema);
        const wrapped = compileSchema(wrapSchema(schema));
        expect(plain.ok).toBe(true);
        expect(wrapped.ok).toBe(true);
        if (!plain.ok || !wrapped.ok) return;
        for (const value of values) expect(check(wrapped.validate, { result: value }).ok).toBe(check(plain.validate, value).ok);
        expect(wrapped.validate({})).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('tools/list for strict clients', () => {
  it('whatever the upstream declares, a v1 SDK client accepts the rewritten list on every legacy revision', () => {
    const anyJson = fc.jsonValue({ maxDepth: 2 }).map((v) => v as Json);
    const definition = fc.record(
      {
        name: fc.string({ minLength: 1, maxLength: 8 }),
        inputSchema: fc.oneof(withDefs, anyJson, fc.constant({ $schema: 'http://json-schema.org/draft-07/schema#' })),
        outputSchema: fc.oneof(withDefs, anyJson, fc.boolean(), fc.constant({ type: 'object', properties: { a: true, b: { type: 'string' } }, required: ['b'] })),
      },
      { requiredKeys: ['name'] },
    );
    fc.assert(
      fc.property(fc.array(definition, { maxLength: 5 }), fc.constantFrom('2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'), (tools, revision) => {
        const policy = upstreamWith({});
        const { result } = rewriteToolsList({ tools: tools as unknown as Json[] }, policy, revision);
        const parsed = ListToolsResultSchema.safeParse(result);
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
        expect((result.tools as JsonObject[]).map((t) => t.name)).toEqual(tools.map((t) => t.name));
      }),
      { numRuns: 200 },
    );
  });
});
