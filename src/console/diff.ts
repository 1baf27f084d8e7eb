/**
 * The Learn page's "running → proposed" of one tool's YAML entry, as a unified diff (jsdiff's Myers diff).
 * The whole entry is the context: entries are a few dozen lines, and the page shows them whole.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

/**
 * Edits past which the diff is not worked out line by line (everything old removed, everything new added):
 * Myers' diff costs grow with the number of edits, and the page is rendered on a request.
 */
export const MAX_EDITS = 2_000;

/** `a` → `b` as a unified diff with a `--- `/`+++ ` head; the head alone when nothing changed. */
export function lineDiff(a: string, b: string, names: { readonly from: string; readonly to: string }): string {
  const patch = createTwoFilesPatch(names.from, names.to, a, b, undefined, undefined, { context: Number.MAX_SAFE_INTEGER, maxEditLength: MAX_EDITS, headerOptions: FILE_HEADERS_ONLY });
  if (patch !== undefined) return patch;
  const lines = (text: string, mark: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n').map((l) => `${mark}${l}`));
  const x = lines(a, '-');
  const y = lines(b, '+');
  return [`--- ${names.from}`, `+++ ${names.to}`, `@@ -${x.length === 0 ? 0 : 1},${x.length} +${y.length === 0 ? 0 : 1},${y.length} @@`, ...x, ...y].join('\n') + '\n';
}
