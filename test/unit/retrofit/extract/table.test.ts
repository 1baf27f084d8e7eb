import fc from '../../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { extractTables, splitRow } from '../../../../src/retrofit/extract/table.js';

const all = (text: string) => [...extractTables(text)];

describe('table', () => {
  it('reads a pipe table anywhere in the text; the header names the keys', () => {
    const text = 'Services:\n\n| service | status | uptime |\n|:--|:-:|--:|\n| api | ok | 12 |\n| db | | 7 |\n\nThat is all.';
    expect(all(text)).toEqual([{ ok: true, rows: [{ service: 'api', status: 'ok', uptime: '12' }, { service: 'db', uptime: '7' }] }]);
  });
  it('escaped pipes, no outer pipes, extra and missing cells', () => {
    expect(all('a | b\n--- | ---\nx \\| y | 2 | extra\nonly')).toEqual([{ ok: true, rows: [{ a: 'x | y', b: '2' }] }]);
    expect(all('| a | b |\n| - | - |\n| 1 |')).toEqual([{ ok: true, rows: [{ a: '1' }] }]);
  });
  it('keeps cell text exactly (leading zeros, points, markdown)', () => {
    expect(all('| zip | v | name |\n|---|---|---|\n| 02134 | 1.10 | **x** |')).toEqual([{ ok: true, rows: [{ zip: '02134', v: '1.10', name: '**x**' }] }]);
  });
  it('is not a table without a matching delimiter row, or inside a code fence', () => {
    expect(all('| a | b |\n| - |\n| 1 | 2 |')).toEqual([]);
    expect(all('a | b\nc | d')).toEqual([]);
    expect(all('```\n| a |\n| - |\n| 1 |\n```')).toEqual([]);
  });
  it('several tables, in order; a header naming a column twice is refused', () => {
    expect(all('| a |\n|---|\n| 1 |\n\n| b | b |\n|---|---|\n| 2 | 3 |')).toEqual([
      { ok: true, rows: [{ a: '1' }] },
      { ok: false, reason: 'the table\'s header names the column "b" twice' },
    ]);
  });
  it('splitRow', () => {
    expect(splitRow('| a | b |')).toEqual(['a', 'b']);
    expect(splitRow('a|b')).toEqual(['a', 'b']);
    expect(splitRow('no pipes')).toBeUndefined();
    expect(splitRow('| |')).toEqual(['']);
  });
  it('is linear: 10 MB of table rows, and 10 MB of pipes without a delimiter row', () => {
    const rows = '| x | 1 |\n'.repeat(1_000_000);
    expect((all(`| a | b |\n|---|---|\n${rows}`)[0] as { rows: unknown[] }).rows.length).toBe(1_000_000);
    expect(all('|'.repeat(10 * 1024 * 1024))).toEqual([]);
  });

  // Random records rendered as a table read back exactly.
  const cell = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '7', '.', '-', ' ', '|', '*', 'é', ':') }).map((s) => s.trim()).filter((s) => s !== '' && !/^[-:]+$/.test(s));
  const records = fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', '_'), minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }).chain((keys) =>
    fc.tuple(fc.constant(keys), fc.array(fc.record(Object.fromEntries(keys.map((k) => [k, cell])), { requiredKeys: [] }), { minLength: 1, maxLength: 8 })),
  );
  it('returns random records exactly', () => {
    fc.assert(
      fc.property(records, fc.boolean(), ([keys, rows], outer) => {
        const esc = (s: string) => s.replace(/\|/g, '\\|');
        // Without outer pipes a row cannot start or end with an empty cell (GFM reads that pipe as the row's edge).
        const edgesFilled = keys.length > 1 && rows.every((r) => (r as Record<string, string>)[keys[0]!] !== undefined && (r as Record<string, string>)[keys.at(-1)!] !== undefined);
        const line = (cells: string[]) => (outer || !edgesFilled ? `| ${cells.join(' | ')} |` : cells.join(' | '));
        const text = ['Result:', '', line(keys), line(keys.map(() => '---')), ...rows.map((r) => line(keys.map((k) => esc((r as Record<string, string>)[k] ?? '')))), '', 'done'].join('\n');
        const found = all(text);
        // A row whose cells are all empty still counts, so a blank-looking row is kept as {}.
        expect(found).toEqual([{ ok: true, rows }]);
      }),
      { numRuns: 300 },
    );
  });
});
