/**
 * Which `tools:` key governs a tool name: an exact key wins; otherwise the first glob, in file order, that
 * matches. A key is a glob when it contains any of `* ? [ ] { } !`.
 */
import picomatch from 'picomatch';

const GLOB_CHARS = /[*?[\]{}!]/;

/** True when a `tools:` key is a glob rather than an exact tool name. */
export function isGlob(key: string): boolean {
  return GLOB_CHARS.test(key);
}

/** Resolves tool names to the key that governs them. */
export interface Matcher {
  /** The governing key, or undefined when none matches. */
  match(tool: string): string | undefined;
}

/** Build a matcher for keys in file order. Throws nothing: a glob picomatch cannot parse never matches. */
export function createMatcher(keys: readonly string[]): Matcher {
  const exact = new Set<string>();
  const globs: { key: string; test: (name: string) => boolean }[] = [];
  for (const key of keys) {
    if (!isGlob(key)) {
      exact.add(key);
      continue;
    }
    try {
      // Tool names are not paths: `/` and dots are ordinary characters.
      const test = picomatch(key, { dot: true, nobrace: false, bash: true });
      globs.push({ key, test: (name) => test(name) });
    } catch {
      // an unparseable glob is reported by compileUpstreamPolicy
    }
  }
  return {
    match(tool) {
      if (exact.has(tool)) return tool;
      return globs.find((g) => g.test(tool))?.key;
    },
  };
}

/** Why a glob key cannot be used, or undefined when it is fine. */
export function globProblem(key: string): string | undefined {
  if (!isGlob(key)) return undefined;
  try {
    picomatch.makeRe(key);
    return undefined;
  } catch (err) {
    return `invalid glob: ${err instanceof Error ? err.message : String(err)}`;
  }
}
