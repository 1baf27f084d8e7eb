/**
 * Regression (issue 23, the small-retrofit row): the inexact-number note of a JSON reading was worked out for
 * every reading — the candidate's `notes` getter was read when the reading was checked, not when it failed —
 * so every retrofit paid a second pass over its text for a note only a failure shows. The note must be
 * computed only for a reading that fails, and still be among that failure's reasons.
 * The real exact-json module runs; the wrapper only counts calls of its note.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

const calls = vi.hoisted(() => ({ note: 0 }));

vi.mock('../../../src/retrofit/extract/exact-json.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/retrofit/extract/exact-json.js')>();
  return {
    ...real,
    inexactNote: (text: string): string | undefined => {
      calls.note += 1;
      return real.inexactNote(text);
    },
  };
});

describe('the inexact-number note of a JSON reading', () => {
  const policy = upstreamWith({
    report: { outputSchema: { type: 'object', properties: { id: { type: 'integer' }, station: { type: 'string' } }, required: ['id'] } },
    loose: { outputSchema: { type: 'object', properties: { id: { type: ['integer', 'string'] } }, required: ['id'] } },
  });

  beforeEach(() => {
    calls.note = 0;
  });

  it('is not computed when the first reading validates (the usual small result)', () => {
    const out = rewriteToolCall({ content: [{ type: 'text', text: '{"id": 7, "station": "bench"}' }] }, 'report', policy, '2025-06-18');
    expect(out.outcome).toMatchObject({ outcome: 'extracted', format: 'json' });
    expect(out.result.structuredContent).toEqual({ id: 7, station: 'bench' });
    expect(calls.note).toBe(0);
  });

  it('is not computed when a reading with an inexact literal validates (the schema takes the string)', () => {
    const out = rewriteToolCall({ content: [{ type: 'text', text: '{"id": 9007199254740993}' }] }, 'loose', policy, '2025-06-18');
    expect(out.result.structuredContent).toEqual({ id: '9007199254740993' });
    expect(calls.note).toBe(0);
  });

  it('is computed once for a failing reading, and is among its reasons', () => {
    const out = rewriteToolCall({ content: [{ type: 'text', text: '{"id": 9007199254740993}' }] }, 'report', policy, '2025-06-18');
    expect(out.outcome.outcome).toBe('invalid');
    expect(out.outcome.reasons?.join('\n')).toContain('9007199254740993');
    expect(out.outcome.reasons?.join('\n')).toContain('more digits than a JSON number holds exactly');
    expect(calls.note).toBe(1);
  });
});
