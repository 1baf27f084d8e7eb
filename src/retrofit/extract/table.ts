/**
 * `table`: GitHub-flavoured pipe tables anywhere in the text, each an array of objects keyed by its header
 * row. A table is a header row and a delimiter row (`| --- | :-: |`) with the same number of cells, then body
 * rows up to a blank line or a line without a pipe (GFM would also take a pipe-less line as a one-cell row;
 * prose right after a table is far more common, so it ends the table here). Cells are trimmed, `\|` is a
 * literal pipe, other text is kept as written (markdown included); an empty cell leaves its property out, and
 * a row's cells beyond the header are ignored (as GFM does). Columns with an empty header are skipped; a
 * header naming a column twice makes the table unreadable (which value would it be?). Lines inside code
 * fences are not tables. One pass over the lines; cells stay strings, typed later by the schema (coerce).
 */
import { rowsTooLarge } from './rows.js';
import type { JsonObject } from '../../json.js';
import { setField } from '../safe-json.js';

/** Longest text the table reading looks at (UTF-16 code units). */
export const TABLE_MAX_INPUT = 16 * 1024 * 1024;

const DELIMITER_CELL = /^:?-+:?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** One table found: its rows, or why it cannot be read. */
export type TableReading = { readonly ok: true; readonly rows: JsonObject[] } | { readonly ok: false; readonly reason: string };

/** The cells of a row: split on unescaped pipes, outer pipes dropped, `\|` unescaped, trimmed. */
export function splitRow(line: string): string[] | undefined {
  if (line.indexOf('|') < 0) return undefined;
  const cells: string[] = [];
  let cell = '';
  let from = 0;
  let pipes = 0;
  for (;;) {
    const bar = line.indexOf('|', from);
    if (bar < 0) break;
    if (bar > 0 && line[bar - 1] === '\\') {
      cell += `${line.slice(from, bar - 1)}|`;
    } else {
      cells.push((cell + line.slice(from, bar)).trim());
      cell = '';
      pipes++;
    }
    from = bar + 1;
  }
  if (pipes === 0) return undefined;
  cells.push((cell + line.slice(from)).trim());
  // A leading or trailing pipe opens or closes the row; it does not start an empty cell.
  const t = line.trim();
  if (t.startsWith('|')) cells.shift();
  if (t.endsWith('|') && !t.endsWith('\\|') && cells.length > 0) cells.pop();
  return cells;
}

function isDelimiterRow(line: string, width: number): boolean {
  const cells = splitRow(line);
  return cells !== undefined && cells.length === width && cells.every((c) => DELIMITER_CELL.test(c));
}

function readTable(header: readonly string[], body: readonly string[][]): TableReading {
  const seen = new Set<string>();
  for (const name of header) {
    if (name === '') continue;
    if (seen.has(name)) return { ok: false, reason: `the table's header names the column "${name}" twice` };
    seen.add(name);
  }
  const tooLarge = rowsTooLarge(header, body, (cell) => cell.length);
  if (tooLarge !== undefined) return { ok: false, reason: `the table is too large to read: ${tooLarge}` };
  const rows = body.map((cells) => {
    const row: JsonObject = {};
    header.forEach((name, i) => {
      const value = cells[i];
      if (name !== '' && value !== undefined && value !== '') setField(row, name, value);
    });
    return row;
  });
  return { ok: true, rows };
}

/** Every pipe table in `text`, in order (lazily). Texts over TABLE_MAX_INPUT yield nothing. */
export function* extractTables(text: string): Generator<TableReading> {
  if (text.length > TABLE_MAX_INPUT) return;
  const lines = text.split(/\r\n|\n|\r/);
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0]!.repeat(3);
      else if (marker.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const header = splitRow(line);
    if (header === undefined || i + 1 >= lines.length || !isDelimiterRow(lines[i + 1]!, header.length)) continue;
    const body: string[][] = [];
    let j = i + 2;
    for (; j < lines.length; j++) {
      const row = lines[j]!.trim() === '' ? undefined : splitRow(lines[j]!);
      if (row === undefined) break;
      body.push(row);
    }
    yield readTable(header, body);
    i = j - 1;
  }
}
