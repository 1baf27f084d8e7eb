/**
 * Regression: a table whose header names were long and cells short read as ~150 times its size (2.4 MB of text,
 * 357 MB of JSON, 1.2 GB of memory). Readings of rows are estimated before they are built and refused past
 * ROWS_MAX_JSON, for pipe tables and CSV alike; ordinary tables are read as before.
 */
import { describe, expect, it } from 'vitest';
import { extractCsv } from '../../../../src/retrofit/extract/csv.js';
import { ROWS_MAX_JSON, rowsTooLarge } from '../../../../src/retrofit/extract/rows.js';
import { extractTables } from '../../../../src/retrofit/extract/table.js';

const COLUMNS = 2_000;
const NAMES = Array.from({ length: COLUMNS }, (_, i) => `${'c'.repeat(495)}${String(i).padStart(5, '0')}`);

describe('readings of rows are bounded by their JSON, not their text', () => {
  it('a pipe table with 500-character names and 1-character cells: refused before its rows are built', () => {
    const rows = 40; // 2,000 × 40 cells × ~506 characters ≈ 40 MB of JSON from ~0.3 MB of text
    const text = [`|${NAMES.join('|')}|`, `|${NAMES.map(() => '-').join('|')}|`, ...Array.from({ length: rows }, () => `|${NAMES.map(() => 'x').join('|')}|`)].join('\n');
    expect(text.length).toBeLessThan(2_000_000);
    const [reading] = [...extractTables(text)];
    expect(reading).toMatchObject({ ok: false, reason: expect.stringContaining(`more than ${ROWS_MAX_JSON} characters of JSON`) });
  });
  it('the same as CSV', () => {
    const text = [NAMES.join(','), ...Array.from({ length: 40 }, () => NAMES.map(() => 'x').join(','))].join('\n');
    expect(extractCsv(text)).toMatchObject({ ok: false, reason: expect.stringContaining('too large to read') });
  });
  it('an ordinary table is read', () => {
    const [reading] = [...extractTables('| city | temp |\n| --- | --- |\n| Paris | 17 |\n| Oslo | -3 |')];
    expect(reading).toEqual({ ok: true, rows: [{ city: 'Paris', temp: '17' }, { city: 'Oslo', temp: '-3' }] });
  });
  it('counts named, non-empty cells only', () => {
    expect(rowsTooLarge(['a', ''], [['x', 'y'.repeat(ROWS_MAX_JSON)]], (c) => c.length)).toBeUndefined();
    expect(rowsTooLarge(['a'], [['y'.repeat(ROWS_MAX_JSON)]], (c) => c.length)).toContain('more than');
  });
});
