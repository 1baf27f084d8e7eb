import fc from '../../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { extractCsv } from '../../../../src/retrofit/extract/csv.js';

describe('csv', () => {
  it('RFC 4180: quoted fields, doubled quotes, embedded newlines, CRLF, BOM', () => {
    const text = '\ufeffname,note,zip\r\n"Smith, J.","said ""hi""\nthen left",02134\r\nLee,,"007"\r\n';
    expect(extractCsv(text)).toEqual({ ok: true, rows: [{ name: 'Smith, J.', note: 'said "hi"\nthen left', zip: '02134' }, { name: 'Lee', zip: '007' }] });
  });
  it('an empty unquoted field is absent; a quoted "" is the empty string', () => {
    expect(extractCsv('a,b\n,""\n')).toEqual({ ok: true, rows: [{ b: '' }] });
  });
  it('delimiter: TSV and others', () => {
    expect(extractCsv('a\tb\n1.10\tx y\n', '\t')).toEqual({ ok: true, rows: [{ a: '1.10', b: 'x y' }] });
    expect(extractCsv('a;b\n1;2', ';')).toEqual({ ok: true, rows: [{ a: '1', b: '2' }] });
  });
  it('is strict: ragged rows, stray quotes and duplicate headers are refused with a reason', () => {
    expect(extractCsv('a,b\n1\n')).toEqual({ ok: false, reason: expect.stringMatching(/^not CSV: Invalid Record Length: expect 2, got 1 on line 2/) });
    expect(extractCsv('a,b\n1,"x\n')).toMatchObject({ ok: false, reason: expect.stringMatching(/^not CSV: /) });
    expect(extractCsv('a,a\n1,2\n')).toEqual({ ok: false, reason: 'the CSV header names the column "a" twice' });
    expect(extractCsv('')).toEqual({ ok: false, reason: 'the text holds no CSV header row' });
  });

  const field = fc.string({ unit: fc.constantFrom('a', '0', ' ', ',', '"', '\n', '\r\n', '\t', ';', 'é', '.'), minLength: 1 });
  const records = fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }).chain((keys) =>
    fc.tuple(fc.constant(keys), fc.array(fc.record(Object.fromEntries(keys.map((k) => [k, field])), { requiredKeys: [] }), { minLength: 1, maxLength: 8 })),
  );
  it('returns random records exactly (any delimiter)', () => {
    fc.assert(
      fc.property(records, fc.constantFrom(',', '\t', ';'), ([keys, rows], delimiter) => {
        const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
        // Every present field is quoted (it may hold the delimiter or a newline); absent ones are empty.
        const text = [keys.join(delimiter), ...rows.map((r) => keys.map((k) => ((r as Record<string, string>)[k] === undefined ? '' : quote((r as Record<string, string>)[k]!))).join(delimiter))].join('\r\n');
        const expected = rows.filter((r) => keys.length > 1 || Object.keys(r).length > 0);
        expect(extractCsv(text, delimiter)).toEqual({ ok: true, rows: expected });
      }),
      { numRuns: 300 },
    );
  });
});
