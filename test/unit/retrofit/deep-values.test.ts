/**
 * Regression: a tool's text holding `[[[…]]]` 60,000 deep was extracted for an array schema (ajv checks no
 * depth without `items`), then the rewritten answer could not be serialised and its request was never
 * answered. A value nested deeper than the gateway's bound (MAX_DEPTH, less the levels of the message around
 * structuredContent) is a failed reading.
 */
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan, type JsonObject } from '../../../src/json.js';
import { MAX_DEPTH } from '../../../src/jsonrpc/strict.js';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const text = (t: string): JsonObject => ({ content: [{ type: 'text', text: t }] });

describe('values nested too deeply', () => {
  const policy = upstreamWith({ t: { outputSchema: { type: 'array' } } });
  it('60,000 levels: an isError result naming the depth, which serialises', () => {
    const out = rewriteToolCall(text(nested(60_000)), 't', policy, '2026-07-28');
    expect(out.outcome).toMatchObject({ outcome: 'invalid', reasons: [expect.stringContaining('nests deeper than')] });
    expect(out.result.isError).toBe(true);
    expect(() => JSON.stringify({ jsonrpc: '2.0', id: 1, result: out.result })).not.toThrow();
  });
  it('at the bound: served; one level more: refused', () => {
    const bound = MAX_DEPTH - 4;
    expect(rewriteToolCall(text(nested(bound)), 't', policy, '2026-07-28').outcome.outcome).toBe('extracted');
    expect(rewriteToolCall(text(nested(bound + 1)), 't', policy, '2026-07-28').outcome.outcome).toBe('invalid');
  });
  it('nestsDeeperThan counts containers only, iteratively', () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan([], 1)).toBe(false);
    expect(nestsDeeperThan([[]], 1)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: 'x' }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan(JSON.parse(nested(200_000)), 512)).toBe(true);
  });
});
