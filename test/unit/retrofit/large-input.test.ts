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
    rows: { outputSchema: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } } } } },
    csv: { outputSchema: { type: 'array' }, extract: { format: 'csv' } },
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

  it('a 10 MB pipe table in prose is read by auto, cells typed', () => {
    const body = Array.from({ length: 420_000 }, (_, i) => `| ${i} | ${'x'.repeat(12)} |`).join('\n');
    const text = `Rows:\n\n| n | pad |\n|---|---|\n${body}\n`;
    expect(text.length).toBeGreaterThan(10 * MB);
    const out = rewriteToolCall({ content: [{ type: 'text', text }] }, 'rows', policy, '2026-07-28');
    expect(out.outcome).toMatchObject({ outcome: 'extracted', format: 'table' });
    expect((out.result.structuredContent as { n: number }[])[419_999]).toEqual({ n: 419_999, pad: 'xxxxxxxxxxxx' });
  });

  it('10 MB of CSV is read; 10 MB of prose with one bullet is a one-item list, not slow', () => {
    const csv = `a,b\n${'1,"x, y"\n'.repeat(1_200_000)}`;
    expect(csv.length).toBeGreaterThan(10 * MB);
    const out = rewriteToolCall({ content: [{ type: 'text', text: csv }] }, 'csv', policy, '2026-07-28');
    expect((out.result.structuredContent as unknown[]).length).toBe(1_200_000);
    const prose = `- ${'word '.repeat((10 * MB) / 5)}`;
    const list = rewriteToolCall({ content: [{ type: 'text', text: prose }] }, 'arr', policy, '2026-07-28');
    expect(list.outcome).toMatchObject({ outcome: 'extracted', format: 'list' });
  });
});
