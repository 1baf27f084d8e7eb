/** The repair table of issue 8: broken tool definitions and what strict clients receive instead. */
import { describe, expect, it } from 'vitest';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Json, JsonObject } from '../../../src/json.js';
import { rewriteToolsList, rewriteToolCall, type ToolRepair } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

const DRAFT7 = 'http://json-schema.org/draft-07/schema#';

interface Row {
  readonly name: string;
  readonly tool: JsonObject;
  readonly expected: JsonObject;
  readonly repairs: ToolRepair['kind'][];
}

const ROWS: Row[] = [
  {
    name: 'inputSchema with only $schema (the drifted filesystem server)',
    tool: { name: 'read_file', inputSchema: { $schema: DRAFT7 } },
    expected: { name: 'read_file', inputSchema: { $schema: DRAFT7, type: 'object' } },
    repairs: ['input_type_added'],
  },
  {
    name: 'missing type, properties kept',
    tool: { name: 't', description: 'd', inputSchema: { properties: { p: { type: 'string' } }, required: ['p'] } },
    expected: { name: 't', description: 'd', inputSchema: { properties: { p: { type: 'string' } }, required: ['p'], type: 'object' } },
    repairs: ['input_type_added'],
  },
  {
    name: 'type ["object","null"]',
    tool: { name: 't', inputSchema: { type: ['object', 'null'], properties: {} } },
    expected: { name: 't', inputSchema: { type: 'object', properties: {} } },
    repairs: ['input_type_added'],
  },
  {
    name: '$ref root',
    tool: { name: 't', inputSchema: { $ref: '#/$defs/args', $defs: { args: { type: 'object' } } } },
    expected: { name: 't', inputSchema: { $ref: '#/$defs/args', $defs: { args: { type: 'object' } }, type: 'object' } },
    repairs: ['input_type_added'],
  },
  {
    name: 'non-object root',
    tool: { name: 't', inputSchema: { type: 'string' } },
    expected: { name: 't', inputSchema: { type: 'object' } },
    repairs: ['input_type_added'],
  },
  {
    name: 'boolean property schemas',
    tool: { name: 't', inputSchema: { type: 'object', properties: { any: true, none: false, s: { type: 'string' } } } },
    expected: { name: 't', inputSchema: { type: 'object', properties: { any: {}, none: { not: {} }, s: { type: 'string' } } } },
    repairs: ['input_type_added'],
  },
  {
    // Regression: `required: "a"` made both SDKs reject the whole list; `properties: {a: null}` the v1 SDK.
    name: 'required that is not a list of names, property schemas that are not schemas',
    tool: { name: 't', inputSchema: { type: 'object', properties: { a: null, b: 3, c: { type: 'string' } }, required: 'a' } },
    expected: { name: 't', inputSchema: { type: 'object', properties: { a: {}, b: {}, c: { type: 'string' } } } },
    repairs: ['input_type_added'],
  },
  {
    name: 'required with names and other entries; properties that is not an object',
    tool: { name: 't', inputSchema: { type: 'object', properties: [1], required: ['a', 1, null] } },
    expected: { name: 't', inputSchema: { type: 'object', required: ['a'] } },
    repairs: ['input_type_added'],
  },
  {
    name: 'missing inputSchema',
    tool: { name: 't' },
    expected: { name: 't', inputSchema: { type: 'object' } },
    repairs: ['input_type_added'],
  },
  {
    name: 'uncompilable outputSchema',
    tool: { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { a: { type: 'strng' } } } },
    expected: { name: 't', inputSchema: { type: 'object' } },
    repairs: ['output_removed'],
  },
  {
    name: 'outputSchema with a network $ref',
    tool: { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } } },
    expected: { name: 't', inputSchema: { type: 'object' } },
    repairs: ['output_removed'],
  },
  {
    name: 'outputSchema in an unknown dialect',
    tool: { name: 't', inputSchema: { type: 'object' }, outputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } },
    expected: { name: 't', inputSchema: { type: 'object' } },
    repairs: ['output_removed'],
  },
  {
    name: 'outputSchema whose $ref leads back to it at the same place (it compiles, and overflows every validator)',
    tool: { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', $ref: '#' } },
    expected: { name: 't', inputSchema: { type: 'object' } },
    repairs: ['output_removed'],
  },
  {
    name: 'recursive tree outputSchema kept',
    tool: { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } } },
    expected: { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } } },
    repairs: [],
  },
  {
    name: 'healthy definition untouched',
    tool: { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, _meta: { x: 1 }, extra: 'kept' },
    expected: { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, _meta: { x: 1 }, extra: 'kept' },
    repairs: [],
  },
];

describe.each(ROWS)('$name', ({ tool, expected, repairs }) => {
  it.each(['2025-06-18', '2025-11-25', '2026-07-28'])('is repaired for %s', (revision) => {
    const policy = upstreamWith({});
    const out = rewriteToolsList({ tools: [tool] }, policy, revision);
    expect((out.result.tools as Json[])[0]).toEqual(expected);
    expect(out.repairs.map((r) => r.kind)).toEqual(repairs);
    expect(out.repairs.every((r) => r.tool === tool.name)).toBe(true);
    expect(ListToolsResultSchema.safeParse(out.result).success).toBe(true);
  });
});

describe('configured schemas win over repairs', () => {
  it('a configured inputSchema replaces the upstream one', () => {
    const inputSchema: JsonObject = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const policy = upstreamWith({ read_file: { inputSchema } });
    const out = rewriteToolsList({ tools: [{ name: 'read_file', inputSchema: { $schema: DRAFT7 } }] }, policy, '2025-11-25');
    expect((out.result.tools as JsonObject[])[0]!.inputSchema).toEqual(inputSchema);
    expect(out.repairs).toEqual([{ tool: 'read_file', kind: 'input_replaced' }]);
  });

  it('a configured outputSchema replaces an uncompilable one without a removal repair', () => {
    const policy = upstreamWith({ t: { outputSchema: { type: 'object', properties: { a: { type: 'integer' } } } } });
    const out = rewriteToolsList({ tools: [{ name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'nope' } }] }, policy, '2025-11-25');
    expect((out.result.tools as JsonObject[])[0]!.outputSchema).toEqual({ type: 'object', properties: { a: { type: 'integer' } } });
    expect(out.repairs).toEqual([]);
  });
});

describe('after output_removed, results of that tool carry no structuredContent', () => {
  it.each(['2025-11-25', '2026-07-28'])('%s', (revision) => {
    const policy = upstreamWith({});
    rewriteToolsList({ tools: [{ name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'bogus' } }] }, policy, revision);
    const call = rewriteToolCall({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } }, 't', policy, revision);
    expect(call.result).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
  });
});

describe('era projection applies after repair', () => {
  it('a repaired tool with a native array schema is wrapped for object-only clients', () => {
    const policy = upstreamWith({});
    const out = rewriteToolsList({ tools: [{ name: 't', inputSchema: { $schema: DRAFT7 }, outputSchema: { type: 'array' } }] }, policy, '2025-11-25');
    const tool = (out.result.tools as JsonObject[])[0]!;
    expect(tool.inputSchema).toEqual({ $schema: DRAFT7, type: 'object' });
    expect(tool.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'array' } }, required: ['result'] });
    expect(ListToolsResultSchema.safeParse(out.result).success).toBe(true);
  });
});

describe('repeated lists', () => {
  it('report the same repair again, marked as a repeat, so it is counted every time and logged once', () => {
    const policy = upstreamWith({});
    const list = { tools: [{ name: 'read_file', inputSchema: { $schema: DRAFT7 } }] };
    const first = rewriteToolsList(list, policy, '2025-11-25').repairs;
    const second = rewriteToolsList(list, policy, '2025-11-25').repairs;
    expect(first).toEqual([{ tool: 'read_file', kind: 'input_type_added', detail: 'root type "object" added' }]);
    expect(second).toEqual([{ ...first[0], repeat: true }]);
  });
});

describe('an upstream outputSchema that recurses without end', () => {
  it('is removed, the repair saying what recurses', () => {
    const out = rewriteToolsList({ tools: [{ name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { a: { $ref: '#/properties/a' } } } }] }, upstreamWith({}), '2025-11-25');
    expect(out.repairs).toMatchObject([
      { tool: 't', kind: 'output_removed', detail: 'outputSchema #/properties/a: $ref "#/properties/a" leads back to this schema at the same place in the result (#/properties/a -> #/properties/a): validating anything would recurse without end' },
    ]);
  });
});
