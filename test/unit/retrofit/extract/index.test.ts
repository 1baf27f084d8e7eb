import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../../src/json.js';
import type { ToolConfig } from '../../../../src/config/types.js';
import { compileTool } from '../../../../src/retrofit/compiled.js';
import { candidates } from '../../../../src/retrofit/extract/index.js';
import { TEST_DEFAULTS } from '../helpers.js';

function all(texts: string[], config: ToolConfig, schema: JsonSchema = { type: 'object' }) {
  const { tool } = compileTool(config, TEST_DEFAULTS);
  return [...candidates(texts, tool, schema)];
}

describe('candidates', () => {
  it('auto: the contract order json, fenced, embedded, blocks, relaxed, scalar', () => {
    expect(all(['```json\n{"a":1}\n```'], { extract: { format: 'auto' } }).map((c) => c.format)).toEqual(['fenced', 'embedded', 'relaxed']);
    expect(all(['[1]', '[2]'], { extract: { format: 'auto' } }, { type: 'integer' }).map((c) => c.format)).toEqual(['blocks', 'scalar']);
    expect(all(['17'], {}, { type: 'integer' })).toEqual([
      { format: 'json', value: 17 },
      { format: 'scalar', value: 17 },
      { format: 'scalar', value: '17' },
    ]);
  });

  it('auto with a pattern: the regex reading comes after relaxed and before scalar', () => {
    const config: ToolConfig = { extract: { format: 'auto', pattern: '(?<city>\\w+): (?<temperature>-?\\d+)' } };
    expect(all(['Paris: 17'], config)).toEqual([{ format: 'regex', value: { city: 'Paris', temperature: '17' } }]);
    expect(all(['{"city":"Oslo"}'], config).map((c) => c.format)).toEqual(['json']);
    expect(all(['no match here'], config)).toEqual([]);
  });

  it('auto: no scalar readings when the schema wants an object', () => {
    expect(all(['hello'], {})).toEqual([]);
  });

  it('json: the whole text, then one value per block; nothing from prose', () => {
    expect(all(['{"a":1}'], { extract: { format: 'json' } })).toEqual([{ format: 'json', value: { a: 1 } }]);
    expect(all(['1', '2'], { extract: { format: 'json' } })).toEqual([{ format: 'blocks', value: [1, 2] }]);
    expect(all(['see {"a":1}'], { extract: { format: 'json' } })).toEqual([]);
  });

  it('several text blocks are joined for the whole-text strategies', () => {
    expect(all(['Result:', '{"a": 1}'], {}).map((c) => c.format)).toEqual(['embedded', 'relaxed']);
  });

  it('lazy: stops when the consumer stops', () => {
    const { tool } = compileTool({}, TEST_DEFAULTS);
    const it = candidates(['{"a":1}'], tool, { type: 'object' });
    expect(it.next().value).toEqual({ format: 'json', value: { a: 1 } });
  });

  it('no texts, no candidates', () => {
    expect(all([], {})).toEqual([]);
  });

  it('a single non-array JSON block is a list of one when the schema takes an array', () => {
    expect(all(['{"id": 1}'], {}, { type: 'array' })).toEqual([
      { format: 'json', value: { id: 1 } },
      { format: 'blocks', value: [{ id: 1 }] },
    ]);
    expect(all(['[1]'], {}, { type: 'array' })).toEqual([{ format: 'json', value: [1] }]);
    expect(all(['{"id": 1}'], {}, { type: 'object' })).toEqual([{ format: 'json', value: { id: 1 } }]);
  });

  it('no content blocks at all is an empty list for an array schema only', () => {
    const { tool } = compileTool({}, TEST_DEFAULTS);
    expect([...candidates([], tool, { type: 'array' }, true)]).toEqual([{ format: 'blocks', value: [] }]);
    expect([...candidates([], tool, { type: 'object' }, true)]).toEqual([]);
    expect([...candidates([], tool, { type: 'array' }, false)]).toEqual([]);
  });
});
