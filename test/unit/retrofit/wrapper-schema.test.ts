import { describe, expect, it } from 'vitest';
import { rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import { isWrapperSchema, wrapSchema } from '../../../src/retrofit/wrap.js';
import { TEST_DEFAULTS, upstreamWith } from './helpers.js';

describe('isWrapperSchema: a non-object root an upstream already wrapped', () => {
  it('recognises the wrapper around non-object roots, ours and the SDK’s ($schema repeated inside)', () => {
    expect(isWrapperSchema(wrapSchema({ type: 'array' }))).toBe(true);
    expect(isWrapperSchema(wrapSchema({ anyOf: [{ type: 'object' }, { type: 'integer' }] }))).toBe(true);
    const dialect = 'https://json-schema.org/draft/2020-12/schema';
    expect(isWrapperSchema({ $schema: dialect, type: 'object', properties: { result: { $schema: dialect, type: 'integer' } }, required: ['result'] })).toBe(true);
  });

  it('leaves real object schemas alone', () => {
    expect(isWrapperSchema({ type: 'object', properties: { result: { type: 'object' } }, required: ['result'] })).toBe(false);
    expect(isWrapperSchema({ type: 'object', properties: { result: { type: 'array' } } })).toBe(false);
    expect(isWrapperSchema({ type: 'object', properties: { result: { type: 'array' }, more: {} }, required: ['result'] })).toBe(false);
    expect(isWrapperSchema({ type: 'object', properties: { result: { type: 'array' } }, required: ['result'], description: 'mine' })).toBe(false);
    expect(isWrapperSchema({ type: 'array' })).toBe(false);
  });
});

describe('legacyRoots: drop with a native schema the upstream wrapped itself', () => {
  const wrapped = { type: 'object', properties: { result: { type: 'array' } }, required: ['result'] };
  const list = { tools: [{ name: 'a', inputSchema: { type: 'object' }, outputSchema: wrapped }] };
  const call = { content: [{ type: 'text', text: '[1]' }], structuredContent: { result: [1] } };

  it('drops schema and structuredContent for object-only clients, keeping the text', () => {
    const policy = upstreamWith({}, { ...TEST_DEFAULTS, legacyRoots: 'drop' });
    expect(rewriteToolsList(list, policy, '2025-11-25').result.tools).toEqual([{ name: 'a', inputSchema: { type: 'object' } }]);
    expect(rewriteToolCall(call, 'a', policy, '2025-11-25').result).toEqual({ content: [{ type: 'text', text: '[1]' }] });
  });

  it('keeps both as they are under wrap (no second wrapping)', () => {
    const policy = upstreamWith({});
    expect(rewriteToolsList(list, policy, '2025-11-25').result).toBe(list);
    expect(rewriteToolCall(call, 'a', policy, '2025-11-25').result).toBe(call);
  });
});

describe('a loose configured schema over structuredContent the upstream wrapped itself', () => {
  const policy = upstreamWith({ t: { outputSchema: { anyOf: [{ type: 'object' }, { type: 'array' }] } } });
  const call = { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { result: { a: 1 } } };

  it('pre-2026 sessions: {result: V} is read as V, so it is wrapped once', () => {
    expect(rewriteToolCall(call, 't', policy, '2025-11-25').result.structuredContent).toEqual({ result: { a: 1 } });
    expect(rewriteToolCall(call, 't', policy, '2025-03-26').result).not.toHaveProperty('structuredContent');
  });

  it('2026-07-28: no upstream wraps for it, so the value is taken as it is', () => {
    expect(rewriteToolCall(call, 't', policy, '2026-07-28').result.structuredContent).toEqual({ result: { a: 1 } });
  });
});
