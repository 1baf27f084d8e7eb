/**
 * Regressions from a review of what strict clients reject (2026-12-03): each case made a real SDK client
 * throw — on the whole tools/list or on a call — through the gateway, and passed `check`. Judged here with
 * the v1 SDK's own Tool and result types and its client's validator (ajv's draft-07 class, whatever
 * `$schema` says), the one that read these schemas differently.
 */
import { describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Json, JsonObject, JsonSchema } from '../../../src/json.js';
import type { ToolConfig } from '../../../src/config/types.js';
import { compileTool } from '../../../src/retrofit/compiled.js';
import { rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import { TEST_DEFAULTS, upstreamWith } from './helpers.js';

const v1 = new AjvJsonSchemaValidator();
const text = (t: string): JsonObject => ({ content: [{ type: 'text', text: t }] });

/** The tool as a client of `revision` is shown it. */
function listed(tools: Record<string, ToolConfig>, tool: JsonObject, revision: string): JsonObject {
  const out = rewriteToolsList({ tools: [tool] }, upstreamWith(tools), revision);
  return (out.result.tools as JsonObject[])[0]!;
}

/** What the v1 client does on callTool: parse the result, then validate its structuredContent against the listed schema. */
function v1Accepts(tool: JsonObject, result: JsonObject): boolean {
  if (!CallToolResultSchema.safeParse(result).success) return false;
  if (tool.outputSchema === undefined || result.structuredContent === undefined) return true;
  return v1.getValidator(tool.outputSchema as Parameters<typeof v1.getValidator>[0])(result.structuredContent).valid;
}

describe('a boolean outputSchema', () => {
  it.each([true, false])('configured as %s: served as an object schema to 2026-07-28 clients too', (schema) => {
    const tool = listed({ t: { outputSchema: schema } }, { name: 't', inputSchema: { type: 'object' } }, '2026-07-28');
    expect(tool.outputSchema).toEqual(schema ? {} : { not: {} });
  });
  it('declared by the upstream: served as {} to 2026-07-28 clients', () => {
    const tool = listed({}, { name: 't', inputSchema: { type: 'object' }, outputSchema: true }, '2026-07-28');
    expect(tool.outputSchema).toEqual({});
  });
});

describe('wrapping a non-object schema for object-only clients', () => {
  it('re-roots `$ref: ""` (the document root) like "#"', () => {
    const schema: JsonSchema = { type: 'array', items: { anyOf: [{ type: 'integer' }, { $ref: '' }] } };
    const tool = listed({ t: { outputSchema: schema } }, { name: 't', inputSchema: { type: 'object' } }, '2025-11-25');
    const call = rewriteToolCall(text('[1,[2,[3]]]'), 't', upstreamWith({ t: { outputSchema: schema } }), '2025-11-25');
    expect(call.result.structuredContent).toEqual({ result: [1, [2, [3]]] });
    expect(v1Accepts(tool, call.result)).toBe(true);
  });
  it('treats the keys of draft-07 `dependencies` as names (a property called "default" holds a schema)', () => {
    const schema: JsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: { type: 'object', dependencies: { default: { $ref: '#/definitions/needsX' } } },
      definitions: { needsX: { required: ['x'] } },
    };
    const tool = listed({ t: { outputSchema: schema } }, { name: 't', inputSchema: { type: 'object' } }, '2025-11-25');
    expect(JSON.stringify(tool.outputSchema)).toContain('"#/properties/result/definitions/needsX"');
    const policy = upstreamWith({ t: { outputSchema: schema } });
    expect(rewriteToolCall(text('[{"default":1,"x":2}]'), 't', policy, '2025-11-25').outcome.outcome).toBe('extracted');
    expect(rewriteToolCall(text('[{"default":1}]'), 't', policy, '2025-11-25').outcome.outcome).toBe('invalid');
  });
});

it('a configured inputSchema with boolean property schemas is listed with their object forms', () => {
  const inputSchema: JsonObject = { type: 'object', properties: { a: true, b: false } };
  const out = rewriteToolsList({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }, upstreamWith({ t: { inputSchema } }), '2025-11-25');
  expect((out.result.tools as JsonObject[])[0]!.inputSchema).toEqual({ type: 'object', properties: { a: {}, b: { not: {} } } });
  expect(ListToolsResultSchema.safeParse(out.result).success).toBe(true);
});

describe('removeAdditional with anyOf', () => {
  // ajv checks the root $ref (kind required), then tries the first anyOf branch, which removes `kind` and fails;
  // the second passes. Its verdict "valid" was for a value that no longer has `kind`.
  const schema: JsonSchema = {
    type: 'object',
    $ref: '#/$defs/base',
    $defs: { base: { required: ['kind'] } },
    anyOf: [{ properties: { b: { type: 'string' } }, additionalProperties: false }, { properties: { b: { type: 'integer' } } }],
  };
  it('a value left invalid by the removal is a failure, not served', () => {
    const out = rewriteToolCall(text('{"kind":"x","b":1}'), 't', upstreamWith({ t: { outputSchema: schema, removeAdditional: true } }), '2025-11-25');
    expect(out.outcome.outcome).toBe('invalid');
    expect(out.result.isError).toBe(true);
    expect(out.result).not.toHaveProperty('structuredContent');
  });
  it('the same for the upstream\'s own structuredContent', () => {
    const out = rewriteToolCall({ ...text('{}'), structuredContent: { kind: 'x', b: 1 } }, 't', upstreamWith({ t: { outputSchema: schema, removeAdditional: true } }), '2025-11-25');
    expect(out.outcome.outcome).toBe('invalid');
  });
  // Removals that leave a valid value are still served: remove-additional.test.ts.
});

describe('an error result carrying structuredContent', () => {
  const schema: JsonSchema = { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] };
  const tools = { t: { outputSchema: schema } };
  const error = (structuredContent: Json): JsonObject => ({ content: [{ type: 'text', text: 'city not found' }], isError: true, structuredContent });

  it('that does not match the configured schema the client was shown: the value moves to text', () => {
    const tool = listed(tools, { name: 't', inputSchema: { type: 'object' } }, '2025-11-25');
    const out = rewriteToolCall(error({ error: 'city not found' }), 't', upstreamWith(tools), '2025-11-25');
    expect(out.outcome.outcome).toBe('untouched');
    expect(out.result).toEqual({ content: [{ type: 'text', text: 'city not found' }], isError: true });
    expect(v1Accepts(tool, out.result)).toBe(true);
  });
  it('that matches it: kept', () => {
    const out = rewriteToolCall(error({ temp: 3 }), 't', upstreamWith(tools), '2025-11-25');
    expect(out.result.structuredContent).toEqual({ temp: 3 });
    expect(out.result.isError).toBe(true);
  });
  it('matching a wrapped schema: wrapped as the client was shown it', () => {
    const scalar = { t: { outputSchema: { type: 'number' } as JsonSchema } };
    const tool = listed(scalar, { name: 't', inputSchema: { type: 'object' } }, '2025-11-25');
    const out = rewriteToolCall(error(3), 't', upstreamWith(scalar), '2025-11-25');
    expect(out.result.structuredContent).toEqual({ result: 3 });
    expect(v1Accepts(tool, out.result)).toBe(true);
    expect(rewriteToolCall(error({ no: 1 }), 't', upstreamWith(scalar), '2025-11-25').result).not.toHaveProperty('structuredContent');
  });
  it('for a 2025-03-26 client, which has no structuredContent: removed, its JSON in text when no text block holds it', () => {
    const out = rewriteToolCall({ content: [], isError: true, structuredContent: { temp: 3 } }, 't', upstreamWith(tools), '2025-03-26');
    expect(out.result).toEqual({ content: [{ type: 'text', text: '{"temp":3}' }], isError: true });
  });
  it('of a tool without a configured schema: projected like any native value (a non-object is wrapped for object-only clients)', () => {
    const out = rewriteToolCall({ content: [{ type: 'text', text: '[1,2]' }], isError: true, structuredContent: [1, 2] }, 't', upstreamWith({}), '2025-11-25');
    expect(out.result.structuredContent).toEqual({ result: [1, 2] });
    expect(CallToolResultSchema.safeParse(out.result).success).toBe(true);
  });
  it('an error without structuredContent is the same object', () => {
    const result = { content: [{ type: 'text', text: 'no' }], isError: true };
    expect(rewriteToolCall(result, 't', upstreamWith(tools), '2025-11-25').result).toBe(result);
  });
});

describe('2020-12 forms that draft-07 validators (the v1 client\'s) read more strictly are config errors', () => {
  const errorsOf = (outputSchema: JsonSchema) => compileTool({ outputSchema }, TEST_DEFAULTS).errors.map((e) => `${e.path.join('/')}: ${e.message.slice(0, 40)}`);
  it('prefixItems beside items', () => {
    // The v1 client applies `items` to every element: [1, "a"] fails it at /0.
    const schema: JsonObject = { type: 'object', properties: { p: { type: 'array', prefixItems: [{ type: 'integer' }], items: { type: 'string' } } } };
    expect(v1.getValidator(schema as Parameters<typeof v1.getValidator>[0])({ p: [1, 'a'] }).valid).toBe(false);
    expect(errorsOf(schema)).toEqual(['outputSchema/properties/p/prefixItems: `prefixItems` with `items` means somethi']);
  });
  it('contains with minContains: 0', () => {
    expect(errorsOf({ type: 'object', properties: { xs: { type: 'array', contains: { type: 'integer' }, minContains: 0 } } })).toEqual([
      'outputSchema/properties/xs/minContains: `contains` with `minContains: 0` means s',
    ]);
  });
  it('but not the forms every validator reads alike', () => {
    expect(errorsOf({ type: 'array', prefixItems: [{ type: 'integer' }] })).toEqual([]);
    expect(errorsOf({ type: 'array', prefixItems: [{ type: 'integer' }], items: true })).toEqual([]);
    expect(errorsOf({ type: 'array', contains: { type: 'integer' }, minContains: 2 })).toEqual([]);
    expect(errorsOf({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'integer' }], additionalItems: { type: 'string' } })).toEqual([]);
  });
});
