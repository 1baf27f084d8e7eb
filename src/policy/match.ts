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

/**
 * The `tools:` key that governs exactly `tool` and no other name (what infer writes for a tool it learnt): the
 * name itself, or, when the name holds glob characters and would be read as a glob (`x?`, `!legacy`), the name
 * with each of them escaped. A backslash in such a name is the class `[\\]`: picomatch reads an escaped
 * backslash before another escape as matching nothing.
 */
export function literalKey(tool: string): string {
  if (!isGlob(tool)) return tool;
  return tool.replace(/[\\*?[\]{}()!+@|^$]/g, (c) => (c === '\\' ? '[\\\\]' : `\\${c}`));
}

/** Stands before every name and glob, so no name starts a path segment (`.`, `..`, `.x` match like any name). */
const LEAD = '\uE000';
/** Stands for `/` in names and globs: picomatch would take it as a path separator. */
const SLASH = '\uE001';
const NEGATION = /^!+(?!\()/;

function asName(text: string): string {
  return LEAD + (text.includes('/') ? text.replaceAll('/', SLASH) : text);
}

/**
 * A glob of `*`, `?` and characters picomatch takes literally (letters, digits, `_ - . :` and spaces): matched
 * without a regular expression (wildcardTest). Any other (`/`, `^`, `$`, quotes, `|`, classes, braces…) means
 * something to picomatch, whose expression is then used.
 */
const WILDCARDS_ONLY = /^[A-Za-z0-9_\-.: *?]*$/;

/**
 * Longest name a glob of picomatch's wider syntax (classes, braces, extglobs, `!`) is tried on. Its regular
 * expression backtracks: with k stars, a name built of the glob's own literals costs it about n^k steps, and
 * the names are the peers' to choose (a tools/call's name, initialize's clientInfo.name, each up to
 * `limits.maxRequestBytes`): one 600 kB name held the event loop for 72 s against `*get*by*`. A longer name
 * matches no such glob (exact keys and globs of `*`/`?` still match it).
 */
export const GLOB_NAME_CHARS = 1024;

/**
 * `*` (any run) and `?` (one character) over `name`, the rest literal: the usual wildcard walk, which goes back
 * only to the last star (an earlier one cannot do better), so a name costs at most its length times the
 * glob's, whatever it holds.
 */
function wildcardTest(glob: string): (name: string) => boolean {
  return (name) => {
    let g = 0;
    let n = 0;
    let star = -1;
    let resume = 0;
    while (n < name.length) {
      const c = glob[g];
      if (c === '*') {
        star = g++;
        resume = n;
      } else if (c !== undefined && (c === '?' || c === name[n])) {
        g++;
        n++;
      } else if (star !== -1) {
        g = star + 1;
        n = ++resume;
      } else return false;
    }
    while (glob[g] === '*') g++;
    return g === glob.length;
  };
}

/**
 * A glob over names that are not paths (tool names, client names): `*` and `?` match any character, `/`, dots
 * and newlines included, so `"*"` governs every name whatever an upstream calls its tools. picomatch's syntax
 * (classes, braces, extglobs, a leading `!`), without its path rules; a name longer than GLOB_NAME_CHARS is
 * tried only on a glob of `*` and `?`. Throws what picomatch throws.
 */
export function nameGlob(key: string): (name: string) => boolean {
  const negation = NEGATION.exec(key)?.[0] ?? '';
  const re = picomatch.makeRe(negation + asName(key.slice(negation.length)), { dot: true, nobrace: false, bash: true });
  if (WILDCARDS_ONLY.test(key)) return wildcardTest(key);
  // `s`: picomatch's `*` is a `.`, which would not match a newline.
  const test = new RegExp(re.source, re.flags.includes('s') ? re.flags : `${re.flags}s`);
  return (name) => name.length <= GLOB_NAME_CHARS && test.test(asName(name));
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
      globs.push({ key, test: nameGlob(key) });
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

/**
 * An unclosed `[` or `{`, or a `}` with no `{`: picomatch takes such a key literally, so it would match no tool
 * and say nothing (`read_[`, `{read_graph`). A backslash escapes the next character.
 */
function unbalanced(key: string): string | undefined {
  let braces = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      // A class ends at the first `]` after its first character (`[]a]` and `[!]a]` hold a `]`), which may be
      // an escape (`[\\]` holds a backslash).
      let j = i + 1;
      if (key[j] === '!' || key[j] === '^') j++;
      j += key[j] === '\\' ? 2 : 1;
      while (j < key.length && key[j] !== ']') j += key[j] === '\\' ? 2 : 1;
      if (j >= key.length) return `"[" at ${i + 1} is never closed`;
      i = j;
    } else if (c === '{') braces++;
    else if (c === '}') {
      if (braces === 0) return `"}" at ${i + 1} closes nothing`;
      braces--;
    }
  }
  return braces > 0 ? `a "{" is never closed` : undefined;
}

/** Why a glob key cannot be used, or undefined when it is fine. */
export function globProblem(key: string): string | undefined {
  if (!isGlob(key)) return undefined;
  const open = unbalanced(key);
  if (open !== undefined) return `invalid glob: ${open}`;
  try {
    nameGlob(key);
    return undefined;
  } catch (err) {
    return `invalid glob: ${err instanceof Error ? err.message : String(err)}`;
  }
}
