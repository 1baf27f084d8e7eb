/** inferTool: which reading it picks for a tool's samples, and what it says when none fits. */
import { describe, expect, it } from 'vitest';
import { checkFresh, inferTool, READERS, trialOrder, verifyEntry, type InferSample } from '../../../src/infer/index.js';
import type { JsonObject } from '../../../src/json.js';
import { changeNote } from '../../../src/infer/changes.js';
import { TEST_DEFAULTS } from '../retrofit/helpers.js';

const text = (...texts: string[]): JsonObject => ({ content: texts.map((t) => ({ type: 'text', text: t })) });
const samples = (...results: JsonObject[]): InferSample[] => results.map((result, i) => ({ result, source: `s${i}` }));
const infer = (...results: JsonObject[]) => inferTool('t', samples(...results), TEST_DEFAULTS);

describe('what would change a schema (issue 25)', () => {
  it('names the constraints the samples imposed, as the answers that would break them', () => {
    const out = infer(text('{"id":1,"at":"2026-01-01T00:00:00Z","tags":[{"k":"a"}]}'), text('{"id":2,"at":"2026-01-02T00:00:00Z","tags":[]}'));
    expect(out.notes.at(-1)).toBe(
      'changes if: a text that does not read as json; an object without /id; an object without /at; an object without /tags; a non-integer at /id; and 3 more (infer --explain)',
    );
    expect(changeNote({ type: 'string' }, 'prose')).toBe('changes if: never (any text is the string)');
    expect(changeNote({ type: 'object', properties: { s: { type: 'string', enum: ['a', 'b'] } } }, 'native')).toBe('changes if: /s other than its 2 values');
  });
});

describe('checkFresh: recordings teach, fresh calls check (issue 25)', () => {
  const learnt = infer(text('{"a":1}'), text('{"a":2}'));
  it('keeps an entry every fresh result fits, and says so', () => {
    const out = checkFresh(learnt, samples(text('{"a":3}'), { ...text('boom'), isError: true }), TEST_DEFAULTS);
    expect(out.entry).toEqual(learnt.entry);
    expect(out.notes.slice(-2)).toEqual(['verified on 1 fresh call too', '1 fresh call answered with an error: not a check']);
  });
  it('withdraws an entry that a fresh result breaks, naming the call', () => {
    const out = checkFresh(learnt, [{ result: text('{"a":"three"}'), source: 'call #4 (t)' }], TEST_DEFAULTS);
    expect(out.entry).toBeUndefined();
    expect(out.notes).toContain('warning: 2 of 2 checks fail with this entry:');
    expect(out.notes.some((n) => n.startsWith('  call #4 (t) (2025-11-25): '))).toBe(true);
    expect(out.notes.at(-1)).toMatch(/^no entry: it fails a fresh call/);
  });
  it('leaves a tool without fresh calls as it was', () => {
    expect(checkFresh(learnt, [], TEST_DEFAULTS)).toEqual(learnt);
  });
});

describe('ids in reports (issue 25)', () => {
  it('leading zeros, octal-looking and 16-digit numbers of a key: value report are strings', () => {
    const out = infer(text('mode: 0644\nid: 1234567890123456\nbig: 12345678901234567\nz: 0o17\nn: 3'), text('mode: 0755\nid: 1234567890123457\nbig: 22345678901234567\nz: 0o12\nn: 4'));
    expect(out.entry?.outputSchema).toMatchObject({ properties: { mode: { type: 'string' }, id: { type: 'string' }, big: { type: 'string' }, z: { type: 'string' }, n: { type: 'integer' } } });
  });
});

describe('inferTool', () => {
  it('tries the readings in auto order, then yaml, with mixed auto after the last auto one', () => {
    expect(trialOrder().map((r) => r.name)).toEqual(['json', 'fenced', 'embedded', 'blocks', 'relaxed', 'auto', 'yaml']);
    expect(READERS.filter((r) => !r.auto).map((r) => r.name)).toEqual(['yaml']);
  });

  it.each([
    ['json', { format: 'json' }, [text('{"a":1}'), text('{"a":2,"b":"x"}')]],
    ['fenced', { format: 'auto' }, [text('Result:\n```json\n{"a":1}\n```'), text('```\n{"a":2}\n```\nDone.')]],
    ['embedded', { format: 'auto' }, [text('Here: {"a":1} ok'), text('Got {"a":2}.')]],
    ['blocks', { format: 'json' }, [text('{"a":1}', '{"a":2}'), text('{"a":3}')]],
    ['relaxed', { format: 'auto' }, [text("{'a': 1, 'ok': True}"), text("{'a': 2, 'ok': False,}")]],
    ['auto', { format: 'auto' }, [text('[{"a":1}]'), text('{"a":2}', '{"a":3}'), text('Here: [{"a":4}] ok')]],
    ['yaml', { format: 'yaml' }, [text('a: 1\nstatus: online'), text('a: 2\nstatus: offline')]],
  ])('reads %s samples', (reading, extract, results) => {
    const out = infer(...results);
    expect(out.reading).toBe(reading);
    expect(out.entry?.extract).toEqual(extract);
    const listed = ['blocks', 'auto'].includes(reading);
    expect((out.entry?.outputSchema as JsonObject).type).toBe(listed ? 'array' : 'object');
    expect(out.notes).toEqual([`${results.length} samples, read as ${reading}`, ...(listed ? [expect.stringMatching(/^non-object root/)] : []), expect.stringMatching(/^changes if: /)]);
  });

  it('infers the schema from the values read', () => {
    expect(infer(text('{"a":1}', '{"a":2}'), text('{"a":3.5}')).entry?.outputSchema).toEqual({
      type: 'array',
      items: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    });
  });

  it('proposes a string for prose, says plain prose when a sample has no text, and names the best readings when none reads all', () => {
    const prose = infer(text('Hello there.'), text('Note: it is sunny today'));
    expect(prose.entry).toEqual({ outputSchema: { type: 'string' } });
    expect(prose.notes).toEqual(['2 samples of plain prose: proposed as a string (the text as it is)', 'non-object root: 2025-06-18/2025-11-25 clients get it wrapped as {"result": …}', 'changes if: never (any text is the string)']);
    const textless = infer(text('Hello there.'), text('Note: it is sunny today'), { content: [] });
    expect(textless.entry).toBeUndefined();
    expect(textless.notes).toEqual(['3 samples of plain prose (1 without text): no schema inferred']);
    const mixed = infer(text('{"a":1}'), text('a: 1\nb: 2'), text('nothing'));
    expect(mixed.entry).toBeUndefined();
    expect(mixed.notes).toEqual(['no one format reads every sample (json: 1 of 3, embedded: 1 of 3, blocks: 1 of 3, relaxed: 1 of 3, yaml: 1 of 3): no schema inferred']);
  });

  it('learns from upstream structuredContent as is, and ignores errors and unfinished results', () => {
    const out = infer(
      { ...text('{"a":1}'), structuredContent: { a: 1 } },
      { ...text('{"a":2}'), structuredContent: { a: 2 } },
      { ...text('boom'), isError: true },
      { resultType: 'input_required', inputRequests: {} },
    );
    expect(out.reading).toBe('native');
    expect(out.entry).toEqual({ outputSchema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] } });
    expect(out.notes).toEqual(['2 samples, read as native', '2 error or unfinished results ignored', expect.stringMatching(/^changes if: /)]);
    expect(inferTool('t', samples({ ...text('x'), isError: true }), TEST_DEFAULTS).notes).toEqual(['1 error or unfinished result ignored', 'no result to learn from: no entry inferred']);
  });

  it('notes a name that is a glob, and the escaped key that governs it alone', () => {
    const out = inferTool('get_*', samples(text('{"a":1}')), TEST_DEFAULTS);
    expect(out.notes).toEqual(['1 sample, read as json', 'confidence low: one sample; record more calls, with different arguments, before trusting it', 'the name holds glob characters: its key is written "get_\\\\*", so it governs this tool alone', expect.stringMatching(/^changes if: /)]);
  });

  it('trusts an embedded reading only when samples that differ agree on it (issue 25: one JSON file read once)', () => {
    const once = inferTool('read_multiple_files', samples(text('/data/a.json:\n{"name": "x", "size": 3}')), TEST_DEFAULTS);
    expect(once.entry).toEqual({ outputSchema: { type: 'string' } });
    const same = inferTool('read_multiple_files', samples(text('/data/a.json:\n{"name": "x"}'), text('/data/a.json:\n{"name": "x"}')), TEST_DEFAULTS);
    expect(same.entry).toEqual({ outputSchema: { type: 'string' } });
    const agreeing = inferTool('report', samples(text('Result: {"n": 1} (ok)'), text('Result: {"n": 2} (ok)')), TEST_DEFAULTS);
    expect(agreeing.reading).toBe('embedded');
  });

  it('gives query-style tools (rows whose keys differ between samples) rows of any keys (issue 25: server-postgres)', () => {
    const out = inferTool('query', samples(text('[{"id": 1, "name": "a"}]'), text('[{"count": 3}]'), text('[{"meta": {"size": 1}}]')), TEST_DEFAULTS);
    expect(out.entry).toEqual({ extract: { format: 'json' }, outputSchema: { type: 'array', items: { type: 'object' } } });
    expect(out.notes.some((n) => n.startsWith("query-style: the rows' keys differ between samples"))).toBe(true);
    const table = inferTool('list', samples(text('[{"id": 1}]'), text('[{"id": 2}, {"id": 3}]')), TEST_DEFAULTS);
    expect(table.entry?.outputSchema).toMatchObject({ type: 'array', items: { type: 'object', required: ['id'] } });
  });
});

describe('verifyEntry', () => {
  it('names each sample and revision the engine would not retrofit with an entry', () => {
    const failures = verifyEntry('t', { extract: { format: 'yaml' }, outputSchema: { type: 'integer' } }, samples(text('a: 1\nb: 2'), text('17')), TEST_DEFAULTS);
    expect(failures.map((f) => `${f.source} ${f.revision}`)).toEqual(['s0 2025-11-25', 's0 2026-07-28', 's1 2025-11-25', 's1 2026-07-28']);
    expect(failures[0]?.reason).toMatch(/must be integer/);
    expect(verifyEntry('t', { outputSchema: { type: 'nope' } }, samples(text('1')), TEST_DEFAULTS)[0]?.source).toBe('config');
    expect(verifyEntry('t', { extract: { format: 'json' }, outputSchema: { type: 'integer' } }, samples(text('17')), TEST_DEFAULTS)).toEqual([]);
  });
});
