/**
 * The readings of tabular and listed prose as candidates: pipe tables, CSV, Markdown lists (plain, or each
 * item matched by the tool's pattern). Readings that are found but cannot be read (a header naming a column
 * twice, a ragged CSV row, an item the pattern does not match) put their reason on `notes`, so an
 * unparseable outcome says why.
 */
import type { Json } from '../../json.js';
import type { Candidate } from './candidate.js';
import { extractCsv } from './csv.js';
import { extractLists } from './list.js';
import { matchEach, type CompiledPattern } from './pattern.js';
import { matchValue } from './regex.js';
import { extractTables } from './table.js';

export function* tableCandidates(text: string, notes?: string[]): Generator<Candidate> {
  for (const table of extractTables(text)) {
    if (table.ok) yield { format: 'table', value: table.rows };
    else notes?.push(table.reason);
  }
}

export function* csvCandidates(text: string, delimiter: string | undefined, notes?: string[]): Generator<Candidate> {
  const csv = extractCsv(text, delimiter);
  if (csv.ok) yield { format: 'csv', value: csv.rows };
  else notes?.push(csv.reason);
}

function matchedItems(items: readonly string[], pattern: CompiledPattern, notes?: string[]): Json[] | undefined {
  const run = matchEach(pattern, items);
  if (!run.ok) {
    notes?.push(run.reason);
    return undefined;
  }
  const missing = run.matches.findIndex((m) => m === undefined);
  if (missing >= 0) {
    const shown = items[missing]!.length > 60 ? `${items[missing]!.slice(0, 57)}...` : items[missing]!;
    notes?.push(`list item ${missing + 1} does not match the pattern: ${JSON.stringify(shown)}`);
    return undefined;
  }
  return run.matches.map((m) => matchValue(m!));
}

/** Each list's items as texts, or (with `pattern`) as the objects the pattern's named groups make of them. */
export function* listCandidates(text: string, pattern: CompiledPattern | undefined, notes?: string[]): Generator<Candidate> {
  for (const items of extractLists(text)) {
    if (pattern === undefined) {
      yield { format: 'list', value: items };
      continue;
    }
    const values = matchedItems(items, pattern, notes);
    if (values !== undefined) yield { format: 'list', value: values };
  }
}
