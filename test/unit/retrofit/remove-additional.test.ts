/**
 * removeAdditional: an older release adds fields its newer release's schema forbids (server-memory 2025.8.4
 * writes "type": "entity" into every entity; 2026.8.31 says additionalProperties: false). Dropped before
 * validation, on the extracted value only: never on isError results, never on the upstream's objects, and on
 * native structuredContent only when the tool's own entry sets it.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonSchema } from '../../../src/json.js';
import type { ToolConfig } from '../../../src/config/types.js';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { TEST_DEFAULTS, upstreamWith } from './helpers.js';

const ENTITY: JsonSchema = {
  type: 'object',
  properties: {
    entities: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, observations: { type: 'array', items: { type: 'string' } } }, required: ['name'], additionalProperties: false },
    },
    note: { type: 'object', properties: { a: { type: 'integer' } } },
  },
  required: ['entities'],
  additionalProperties: false,
};
const TEXT = JSON.stringify({ entities: [{ type: 'entity', name: 'Ada', observations: ['x'] }], note: { a: 1, b: 2 }, extra: true });
const text = (t: string): JsonObject => ({ content: [{ type: 'text', text: t }] });
const call = (config: ToolConfig, input: JsonObject, defaults = TEST_DEFAULTS) => rewriteToolCall(input, 't', upstreamWith({ t: config }, defaults), '2026-07-28');

describe('removeAdditional', () => {
  it('false (default): the contract cannot be met, and the failure says which properties', () => {
    const out = call({ outputSchema: ENTITY }, text(TEXT));
    expect(out.outcome.outcome).toBe('invalid');
    expect(out.outcome.reasons).toEqual(expect.arrayContaining(['/ must NOT have additional properties "extra"', '/entities/0 must NOT have additional properties "type"']));
  });
  it('true: drops properties where the schema says additionalProperties: false, keeps the rest', () => {
    const out = call({ outputSchema: ENTITY, removeAdditional: true }, text(TEXT));
    expect(out.result.structuredContent).toEqual({ entities: [{ name: 'Ada', observations: ['x'] }], note: { a: 1, b: 2 } });
    // The text the upstream sent is kept as it was.
    expect((out.result.content as JsonObject[])[0]!.text).toBe(TEXT);
  });
  it('all: drops every property a schema with properties does not name', () => {
    const out = call({ outputSchema: ENTITY, removeAdditional: 'all' }, text(TEXT));
    expect(out.result.structuredContent).toEqual({ entities: [{ name: 'Ada', observations: ['x'] }], note: { a: 1 } });
  });
  it('inherited from defaults for extracted values, but not for native structuredContent', () => {
    const defaults = { ...TEST_DEFAULTS, removeAdditional: true as const };
    expect(call({ outputSchema: ENTITY }, text(TEXT), defaults).result.structuredContent).toEqual({ entities: [{ name: 'Ada', observations: ['x'] }], note: { a: 1, b: 2 } });
    const native = { ...text(TEXT), structuredContent: JSON.parse(TEXT) as JsonObject };
    expect(call({ outputSchema: ENTITY }, native, defaults).outcome.outcome).toBe('invalid');
  });
  it('set on the tool: native structuredContent is pruned on a copy; the upstream object is untouched', () => {
    const upstream = JSON.parse(TEXT) as JsonObject;
    const out = call({ outputSchema: ENTITY, removeAdditional: true }, { ...text(TEXT), structuredContent: upstream });
    expect(out.outcome.outcome).toBe('native');
    expect(out.result.structuredContent).toEqual({ entities: [{ name: 'Ada', observations: ['x'] }], note: { a: 1, b: 2 } });
    expect(upstream).toEqual(JSON.parse(TEXT));
  });
  it('never touches isError results', () => {
    const error = { ...text(TEXT), isError: true };
    expect(call({ outputSchema: ENTITY, removeAdditional: 'all' }, error).result).toBe(error);
  });
  it('a failed reading does not leave a pruned value to the next one', () => {
    // The json reading (the object) fails, after its first anyOf branch pruned "b"; the one-item-list
    // reading reuses that object and must see it whole: without a copy per check it would fail too.
    const schema: JsonSchema = {
      anyOf: [
        { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        { type: 'array', items: { type: 'object', required: ['a', 'b'] } },
      ],
    };
    const out = call({ outputSchema: schema, removeAdditional: true }, text('{"a": 1, "b": 2}'));
    expect(out.outcome).toMatchObject({ outcome: 'extracted', format: 'blocks' });
    expect(out.result.structuredContent).toEqual([{ a: 1, b: 2 }]);
  });
});
