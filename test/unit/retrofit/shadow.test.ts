/**
 * Shadow mode through the engine's public functions: a shadowed tool's configured schema is not listed and
 * its results are served as the upstream sent them (only its own structuredContent projected), while the
 * outcome still says what the retrofit found. `onInvalid: passthrough` is shadow mode too.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { inShadow, rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import { TEST_DEFAULTS, upstreamWith } from './helpers.js';

const WEATHER: JsonObject = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'integer' } }, required: ['city', 'temp'] };
const text = (t: string) => ({ type: 'text', text: t });
const LIST: JsonObject = {
  tools: [
    { name: 'weather', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', properties: { city: { type: 'string' } } } },
    { name: 'native', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'integer' } } } },
    { name: 'served', inputSchema: { type: 'object' } },
  ],
};

describe('which tools are shadowed', () => {
  it('shadow: true, onInvalid: passthrough, and defaults.shadow for entries that say nothing', () => {
    const p = upstreamWith({ a: { outputSchema: WEATHER, shadow: true }, b: { outputSchema: WEATHER, onInvalid: 'passthrough' }, c: { outputSchema: WEATHER }, d: { outputSchema: WEATHER, shadow: false } });
    expect(['a', 'b', 'c', 'd', 'unconfigured'].map((t) => inShadow(p, t))).toEqual([true, true, false, false, false]);
    const all = upstreamWith({ c: { outputSchema: WEATHER }, d: { outputSchema: WEATHER, shadow: false } }, { ...TEST_DEFAULTS, shadow: true });
    expect([inShadow(all, 'c'), inShadow(all, 'd')]).toEqual([true, false]);
  });
});

describe('tools/list', () => {
  const policy = upstreamWith({
    weather: { outputSchema: WEATHER, shadow: true },
    native: { outputSchema: { type: 'object', properties: { n: { type: 'string' } } }, shadow: true, inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
    served: { outputSchema: WEATHER },
  });

  it('lists a shadowed tool as the upstream declares it; repairs and a configured inputSchema still apply', () => {
    for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28']) {
      const { result, repairs } = rewriteToolsList(LIST, policy, revision);
      const [weather, native, served] = result.tools as JsonObject[];
      expect(weather).toEqual({ name: 'weather', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { city: { type: 'string' } } } });
      expect(native).toEqual({ name: 'native', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, outputSchema: { type: 'object', properties: { n: { type: 'integer' } } } });
      expect(served?.outputSchema).toEqual(WEATHER);
      expect(repairs.map((r) => `${r.tool} ${r.kind}`)).toEqual(['weather input_type_added', 'native input_replaced']);
    }
  });
});

describe('tools/call', () => {
  const policy = upstreamWith({ weather: { outputSchema: WEATHER, shadow: true }, native: { outputSchema: WEATHER, shadow: true } });

  it('an extractable result reaches the client unchanged; the outcome is the extraction', () => {
    const result = { content: [text('{"city":"Oslo","temp":-3}')] };
    for (const revision of ['2025-03-26', '2025-11-25', '2026-07-28']) {
      const out = rewriteToolCall(result, 'weather', policy, revision);
      expect(out.result).toBe(result);
      expect(out.outcome).toEqual({ tool: 'weather', outcome: 'extracted', format: 'json' });
    }
  });

  it('a failing result is not an isError: unchanged, and the outcome carries the reasons', () => {
    const result = { content: [text('{"city":"Oslo"}')] };
    const out = rewriteToolCall(result, 'weather', policy, '2025-11-25');
    expect(out.result).toBe(result);
    expect(out.outcome).toEqual({ tool: 'weather', outcome: 'invalid', format: 'json', reasons: ["/ must have required property 'temp'"] });
  });

  it("the upstream's own structuredContent is validated against the shadowed schema and projected as without one", () => {
    rewriteToolsList(LIST, policy, '2025-03-26');
    const result = { content: [text('{"n":1}')], structuredContent: { n: 1 } };
    const modern = rewriteToolCall(result, 'native', policy, '2025-11-25');
    expect(modern.result).toBe(result);
    expect(modern.outcome).toMatchObject({ outcome: 'invalid', format: 'native' });
    // A 2025-03-26 client has no structuredContent, whichever schema governs the tool.
    expect(rewriteToolCall(result, 'native', policy, '2025-03-26').result).toEqual({ content: [text('{"n":1}')] });
  });
});
