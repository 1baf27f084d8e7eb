/**
 * Regression: the bracket scanner behind the embedded and relaxed readings kept one stack entry per open
 * bracket, and megabytes of `{` from an upstream took seconds of event loop per reading (10 MB: ~7 s per
 * call). Now nesting is bounded (MAX_NESTING, the depth the engine reads values to): a deeper text yields no
 * span at all, so the scan stays linear and cheap. No timing assertion: the mechanism is pinned instead.
 */
import { describe, expect, it } from 'vitest';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { MAX_NESTING, topLevelSpans } from '../../src/retrofit/extract/spans.js';
import { upstreamWith } from '../unit/retrofit/helpers.js';

describe('regression: long runs of open brackets', () => {
  it('a text nested deeper than MAX_NESTING yields no spans; one at the limit still does', () => {
    const deep = '['.repeat(MAX_NESTING + 1) + ']'.repeat(MAX_NESTING + 1);
    expect(topLevelSpans(`see ${deep} here`)).toEqual([]);
    const atLimit = '['.repeat(MAX_NESTING) + ']'.repeat(MAX_NESTING);
    expect(topLevelSpans(`see ${atLimit} here`)).toEqual([{ start: 4, end: 4 + 2 * MAX_NESTING }]);
  });

  it('10 MB of `{` is unparseable, and a JSON value after a deep run is not mistaken for the answer', () => {
    const policy = upstreamWith({ obj: { outputSchema: { type: 'object', required: ['ok'] } } });
    const flood = rewriteToolCall({ content: [{ type: 'text', text: '{'.repeat(10 * 1024 * 1024) }] }, 'obj', policy, '2026-07-28');
    expect(flood.outcome.outcome).toBe('unparseable');
    // The inner piece of an over-deep structure is not offered as the embedded value.
    const inner = rewriteToolCall({ content: [{ type: 'text', text: `x ${'['.repeat(600)}{"ok": true}${']'.repeat(600)}` }] }, 'obj', policy, '2026-07-28');
    expect(inner.result.structuredContent).toBeUndefined();
  });
});
