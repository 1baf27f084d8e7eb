import { describe, expect, it } from 'vitest';
import { Lru, NATIVE_MEMORY_SIZE, createNativeMemory, decisionKey } from '../../../src/retrofit/native-memory.js';
import { TOOL_NAME_CHARS } from '../../../src/tool-name.js';
import { rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

describe('Lru', () => {
  it('evicts the least recently used entry', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.size).toBe(2);
  });
});

describe('native decisions', () => {
  it('are bounded per upstream', () => {
    const memory = createNativeMemory();
    for (let i = 0; i < NATIVE_MEMORY_SIZE + 10; i++) memory.decisions.set(`t${i}`, 'object');
    expect(memory.decisions.size).toBe(NATIVE_MEMORY_SIZE);
  });

  it('are not kept for a tool named in more than TOOL_NAME_CHARS characters (an upstream may list any name, of any length)', () => {
    const policy = upstreamWith({});
    const long = 'n'.repeat(TOOL_NAME_CHARS + 1);
    const ok = 'n'.repeat(TOOL_NAME_CHARS);
    rewriteToolsList({ tools: [long, ok].map((name) => ({ name, inputSchema: { type: 'object' }, outputSchema: { type: 'array' } })) }, policy, '2025-11-25');
    expect(policy.native?.decisions.get(decisionKey(ok, 'object-only'))).toBe('non-object');
    expect(policy.native?.decisions.get(decisionKey(long, 'object-only'))).toBeUndefined();
    expect(policy.native?.decisions.size).toBe(1);
  });

  it('survive between tools/list and tools/call of different revisions', () => {
    const policy = upstreamWith({});
    rewriteToolsList({ tools: [{ name: 'a', inputSchema: { type: 'object' }, outputSchema: { anyOf: [{ type: 'object' }] } }] }, policy, '2026-07-28');
    const out = rewriteToolCall({ content: [{ type: 'text', text: '{}' }], structuredContent: {} }, 'a', policy, '2025-06-18');
    expect(out.result.structuredContent).toEqual({ result: {} });
  });

  it('are kept per era: a modern list between an object-only list and call does not wrap the upstream-wrapped value again', () => {
    const policy = upstreamWith({});
    const wrapped = { type: 'object', properties: { result: { type: 'array' } }, required: ['result'] };
    rewriteToolsList({ tools: [{ name: 'a', inputSchema: { type: 'object' }, outputSchema: wrapped }] }, policy, '2025-11-25');
    rewriteToolsList({ tools: [{ name: 'a', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } }] }, policy, '2026-07-28');
    const call = { content: [{ type: 'text', text: '[1]' }], structuredContent: { result: [1] } };
    expect(rewriteToolCall(call, 'a', policy, '2025-11-25').result.structuredContent).toEqual({ result: [1] });
  });

  it('only a modern list known: an upstream-wrapped {result: X} stays as is, a bare value is wrapped', () => {
    const policy = upstreamWith({});
    rewriteToolsList({ tools: [{ name: 'a', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } }] }, policy, '2026-07-28');
    const wrapped = rewriteToolCall({ content: [{ type: 'text', text: '[1]' }], structuredContent: { result: [1] } }, 'a', policy, '2025-11-25');
    expect(wrapped.result.structuredContent).toEqual({ result: [1] });
    const bare = rewriteToolCall({ content: [{ type: 'text', text: '[1]' }], structuredContent: [1] }, 'a', policy, '2025-11-25');
    expect(bare.result.structuredContent).toEqual({ result: [1] });
  });

  it('hand-built policies without compiled parts still work (lazy compile and memory)', () => {
    const entry = { key: 't', config: { outputSchema: { type: 'integer' } } } as const;
    const policy = { upstream: 'u', resolve: (name: string) => (name === 't' ? entry : undefined) };
    const out = rewriteToolCall({ content: [{ type: 'text', text: '5' }] }, 't', policy, '2025-11-25');
    expect(out.result.structuredContent).toEqual({ result: 5 });
    expect(rewriteToolsList({ tools: [{ name: 'x', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } }] }, policy, '2025-11-25').result.tools).toEqual([
      { name: 'x', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { result: { type: 'array' } }, required: ['result'] } },
    ]);
  });
});
