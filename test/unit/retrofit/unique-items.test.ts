import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

/**
 * An outputSchema with uniqueItems over objects: ajv's own keyword compares every pair of items, so an
 * upstream's answer of 40,000 small objects (under 500 KB) ran for about 40 s, on the event loop below the
 * offload threshold and on the undeadlined offload worker above it. The engine's keyword is linear.
 */
describe('uniqueItems', () => {
  const policy = upstreamWith({ list: { extract: { format: 'json' }, outputSchema: { type: 'array', uniqueItems: true, items: { type: 'object' } } } });
  const answer = (items: unknown[]): JsonObject => ({ content: [{ type: 'text', text: JSON.stringify(items) }] });

  it('checks 40,000 distinct objects in linear time', () => {
    const items = Array.from({ length: 40_000 }, (_, i) => ({ a: i, b: { c: [i, 'x'] } }));
    const started = performance.now();
    const out = rewriteToolCall(answer(items), 'list', policy, '2025-11-25');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(out.outcome.outcome).not.toBe('invalid');
    expect((out.result.structuredContent as { result: unknown[] }).result).toHaveLength(40_000);
  }, 60_000);

  it('still refuses equal items (object keys in any order), naming the pair as ajv does', () => {
    const out = rewriteToolCall(answer([{ a: 1, b: [2] }, { z: 0 }, { b: [2], a: 1 }]), 'list', policy, '2025-11-25');
    expect(out.result.isError).toBe(true);
    expect(JSON.stringify(out.result.content)).toContain('must NOT have duplicate items (items ## 0 and 2 are identical)');
    expect(rewriteToolCall(answer([1, '1', true, null, [1], { a: 1 }]), 'list', upstreamWith({ list: { extract: { format: 'json' }, outputSchema: { type: 'array', uniqueItems: true } } }), '2025-11-25').result.isError).toBeUndefined();
  });
});
