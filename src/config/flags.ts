/**
 * `extract.flags`: what is wrong with a flags string, said about the flags actually written (a `g` gets the
 * `all: true` hint, an `x` does not), and the usable part of a bad one, so the pattern can still be checked
 * in the same run.
 */

/** The JavaScript RegExp flags a pattern may carry; global matching is `all`'s business. */
export const PATTERN_FLAGS = 'imsu';

/** Why `flags` is not a set of m, i, s, u each at most once; undefined when it is. */
export function flagsProblem(flags: string): string | undefined {
  const chars = [...flags];
  const unknown = [...new Set(chars.filter((c) => !PATTERN_FLAGS.includes(c)))];
  const repeated = [...new Set(chars.filter((c, i) => PATTERN_FLAGS.includes(c) && chars.indexOf(c) !== i))];
  if (unknown.length === 0 && repeated.length === 0) return undefined;
  const why: string[] = [];
  if (unknown.includes('g')) why.push('for g use `all: true`, which decides global matching');
  if (unknown.includes('y')) why.push('y (sticky) is not supported');
  const others = unknown.filter((c) => c !== 'g' && c !== 'y');
  if (others.length > 0) why.push(`${others.map((c) => JSON.stringify(c)).join(', ')} ${others.length === 1 ? 'is not a flag' : 'are not flags'}`);
  if (repeated.length > 0) why.push(`${repeated.join(', ')} ${repeated.length === 1 ? 'is' : 'are'} repeated`);
  return `may only hold the flags m, i, s, u, each once (${why.join('; ')})`;
}

/** The flags of `flags` that a pattern may use, each once, in the order written. */
export function usableFlags(flags: string): string {
  return [...new Set([...flags].filter((c) => PATTERN_FLAGS.includes(c)))].join('');
}
