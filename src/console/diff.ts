/**
 * A small unified line diff (longest common subsequence), for the Learn page's "running → proposed" of one
 * tool's YAML entry. Entries are a few dozen lines: the quadratic table is bounded by MAX_LINES per side.
 */

/** Lines per side past which the diff is not computed line by line (everything old removed, everything new added). */
export const MAX_LINES = 2_000;

/** `a` → `b` as unified-diff body lines (` ` kept, `-` removed, `+` added), with a `--- `/`+++ ` head. */
export function lineDiff(a: string, b: string, names: { readonly from: string; readonly to: string }): string {
  const x = a === '' ? [] : a.replace(/\n$/, '').split('\n');
  const y = b === '' ? [] : b.replace(/\n$/, '').split('\n');
  const head = [`--- ${names.from}`, `+++ ${names.to}`];
  if (x.length > MAX_LINES || y.length > MAX_LINES) return [...head, ...x.map((l) => `-${l}`), ...y.map((l) => `+${l}`)].join('\n') + '\n';
  // lcs[i][j]: length of the longest common subsequence of x[i..] and y[j..], flat.
  const w = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * w);
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j] ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0);
    }
  }
  const out = head;
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      out.push(` ${x[i]}`);
      i++;
      j++;
    } else if (j < y.length && (i === x.length || (lcs[i * w + j + 1] ?? 0) >= (lcs[(i + 1) * w + j] ?? 0))) {
      out.push(`+${y[j]}`);
      j++;
    } else {
      out.push(`-${x[i]}`);
      i++;
    }
  }
  return `${out.join('\n')}\n`;
}
