/**
 * Inputs are arbitrarily large (10 MB): every strategy must stay linear. No timing assertions — a quadratic
 * scan would blow the test timeout instead.
 */
import { describe, expect, it } from 'vitest';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

const MB = 1024 * 1024;

describe('10 MB inputs', () => {
  const policy = upstreamWith({
    obj: { outputSchema: { type: 'object', required: ['ok'] } },
    arr: { outputSchema: { type: 'array' } },
    s: { outputSchema: { type: 'string' } },
  });

  it('a 10 MB JSON array is extracted', () => {
    const items = Array.from({ length: 200_000 }, (_, i) => ({ i, pad: 'x'.repeat(40) }));
    const text = JSON.stringify(items);
    expect(text.length).toBeGreaterThan(10 * MB);
    const out = rewriteToolCall({ content: [{ type: 'text', text }] }, 'arr', policy, '2026-07-28');
    expect(out.outcome.outcome).toBe('extracted');
    expect((out.result.structuredContent as unknown[]).length).toBe(200_000);
  });

  it('10 MB of unbalanced brackets and quotes is unparseable, not slow', () => {
    const text = '[{"'.repeat((10 * MB) / 3) + ' tail';
    const out = rewriteToolCall({ content: [{ type: 'text', text }] }, 'obj', policy, '2026-07-28');
    expect(out.outcome.outcome).toBe('unparseable');
  });

  it('10 MB of small bracketed prose spans is handled', () => {
    const text = 'see [note] and {aside} '.repeat((10 * MB) / 23) + '{"ok": true}';
    const out = rewriteToolCall({ content: [{ type: 'text', text }] }, 'obj', policy, '2026-07-28');
    expect(out.result.structuredContent).toEqual({ ok: true });
  });

  it('10 MB of prose for a string schema stays a string', () => {
    const text = 'word '.repeat((10 * MB) / 5);
    const out = rewriteToolCall({ content: [{ type: 'text', text }] }, 's', policy, '2026-07-28');
    expect(out.outcome.outcome).toBe('extracted');
    expect(typeof out.result.structuredContent).toBe('string');
  });
});
