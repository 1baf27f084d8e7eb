/**
 * "Did you mean …?" hints for unknown config keys and enum values, and for `tools:` keys that name no tool an
 * upstream lists: the closest allowed one by
 * optimal-string-alignment (Damerau–Levenshtein with adjacent transpositions) distance ≤ 2, or an allowed key
 * the typo is a prefix of (or that is a prefix of the typo). Keys are few, so the O(n·m) table is plenty.
 */

/** Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps cost 1. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    const row = d[i]!;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The allowed key `key` most likely stands for, or undefined when none is close enough. */
export function suggestKey(key: string, allowed: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { key: string; score: number } | undefined;
  for (const candidate of allowed) {
    if (candidate === key) continue;
    const c = candidate.toLowerCase();
    // Case-only differences count as distance 0, so `timeoutms` → `timeoutMs` wins over anything else.
    let score = editDistance(lower, c);
    if (score > 2 && lower.length >= 3 && (c.startsWith(lower) || lower.startsWith(c))) score = 2.5;
    if (score > 2.5) continue;
    if (!best || score < best.score) best = { key: candidate, score };
  }
  return best?.key;
}
