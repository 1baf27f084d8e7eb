/**
 * `csv`: the whole text is RFC 4180 CSV with a header row naming the keys, read by csv-parse's sync API
 * (quoted fields, `""` for a quote, CR/LF inside quotes, a BOM, CRLF or LF records). `delimiter` sets the
 * field separator ("\t" for TSV). Values are kept exactly as written; an empty unquoted field leaves its
 * property out, while a quoted `""` is the empty string someone wrote. Strict: a row with another number
 * of fields than the header, or a stray quote, makes the text unreadable as CSV, with csv-parse's reason
 * (line included); so does a header naming a column twice. Columns with an empty header are skipped. Blank lines are skipped. csv-parse is a
 * single-pass state machine (linear); values stay strings, typed later by the schema (coerce).
 */
import { parse, type CastingContext } from 'csv-parse/sync';
import type { JsonObject } from '../../json.js';
import { setField } from '../safe-json.js';
import { rowsTooLarge } from './rows.js';

/** Longest text the CSV reading accepts (UTF-16 code units). */
export const CSV_MAX_INPUT = 16 * 1024 * 1024;

/** The reading: rows, or why there are none. */
export type CsvReading = { readonly ok: true; readonly rows: JsonObject[] } | { readonly ok: false; readonly reason: string };

/** What csv-parse gives a field: its text, or QUOTED_EMPTY for `""` (which is a value, unlike an empty field). */
const QUOTED_EMPTY = Symbol('quoted empty field');
type Field = string | typeof QUOTED_EMPTY;

// Only the rare quoted empty field gets a marker: one object per field would cost a third more.
const castField = (value: string, context: CastingContext): Field => (value === '' && context.quoting ? QUOTED_EMPTY : value);

export function extractCsv(text: string, delimiter = ','): CsvReading {
  if (text.length > CSV_MAX_INPUT) return { ok: false, reason: `the text is longer than ${CSV_MAX_INPUT} characters, the limit for CSV extraction` };
  let records: Field[][];
  try {
    records = parse(text, { delimiter, bom: true, skip_empty_lines: true, cast: castField }) as unknown as Field[][];
  } catch (err) {
    return { ok: false, reason: `not CSV: ${err instanceof Error ? err.message : String(err)}` };
  }
  const [header, ...body] = records;
  if (header === undefined) return { ok: false, reason: 'the text holds no CSV header row' };
  const names = header.map((f) => (f === QUOTED_EMPTY ? '' : f));
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '') continue;
    if (seen.has(name)) return { ok: false, reason: `the CSV header names the column "${name}" twice` };
    seen.add(name);
  }
  const tooLarge = rowsTooLarge(names, body, (field) => (field === QUOTED_EMPTY ? 2 : field.length));
  if (tooLarge !== undefined) return { ok: false, reason: `the CSV is too large to read: ${tooLarge}` };
  const rows = body.map((fields) => {
    const row: JsonObject = {};
    fields.forEach((field, i) => {
      const name = names[i]!;
      if (name !== '' && field !== '') setField(row, name, field === QUOTED_EMPTY ? '' : field);
    });
    return row;
  });
  return { ok: true, rows };
}
