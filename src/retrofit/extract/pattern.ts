/**
 * A configured `extract.pattern`, compiled once at load, and matching it. Patterns run on re2js (a pure-JS
 * port of RE2: linear time, so an upstream's text cannot stall the gateway through backtracking) directly in
 * the engine, whenever RE2 can run them with JavaScript's meaning (re2-syntax.ts). The others (lookaround,
 * backreferences…) keep a JavaScript RegExp (unbounded.ts), which makes the tool `isolate`d: its retrofits run on
 * the pipeline's isolation worker, under a deadline; `isolate` says so. So does a pattern with `all: true`, which RE2
 * runs: each match is linear in the text, but finding every match of a long text can take its square.
 * Under flag `m`, `^`/`$` also mean "at \r, U+2028, U+2029" to JavaScript and only "at \n" to RE2, so a text
 * holding one of those goes to the JavaScript RegExp too.
 */
import { RE2JS } from 're2js';
import { runRegex, runRegexEach, REGEX_MAX_INPUT, type RegexMatch, type RegexRun } from './unbounded.js';
import { toRe2 } from './re2-syntax.js';

/** A pattern, compiled. */
export interface CompiledPattern {
  /** The pattern as JavaScript compiles it (with `g` when `all`): its meaning, and the engine when RE2 cannot run it. */
  readonly js: RegExp;
  /** The RE2 program with the same meaning, when there is one. */
  readonly re2?: RE2JS;
  /** RE2 runs it, except on texts with \r, U+2028 or U+2029 (line anchors under `m`). */
  readonly lineAnchors: boolean;
  /** Set when some texts are matched by the backtracking JavaScript RegExp (the tool is then isolated): why. */
  readonly isolate?: string;
}

/** Compile `source` with JavaScript `flags` (m, i, s, u); throws what `new RegExp` throws. */
export function compilePattern(source: string, flags: string, all: boolean): CompiledPattern {
  const js = new RegExp(source, all ? `${flags}g` : flags);
  const translated = toRe2(source, flags);
  if (!translated.ok) return { js, lineAnchors: false, isolate: translated.reason };
  let re2: RE2JS;
  try {
    const bits = (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('m') ? RE2JS.MULTILINE : 0);
    re2 = RE2JS.compile(translated.source, bits);
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    return { js, lineAnchors: false, isolate: `pattern uses syntax RE2 cannot run (${why})` };
  }
  if (translated.lineAnchors) return { js, re2, lineAnchors: true, isolate: 'pattern anchors lines (flag m): texts with \\r, U+2028 or U+2029 line breaks are matched by a JavaScript RegExp' };
  // RE2 bounds one match by the text's length, not the search for all of them: each match may read on to the end
  // of the text (an optional group that never closes), so every match of a long text can cost its square.
  if (all) return { js, re2, lineAnchors: false, isolate: ALL_MATCHES };
  return { js, re2, lineAnchors: false };
}

/** Why a pattern with `all: true` is isolated although RE2 runs it. */
export const ALL_MATCHES = 'every match of the pattern (all: true): RE2 bounds the time of one match, not of the search for all of them';

const OTHER_LINE_BREAKS = /[\r\u2028\u2029]/;

function re2Runs(pattern: CompiledPattern, text: string): pattern is CompiledPattern & { re2: RE2JS } {
  return pattern.re2 !== undefined && !(pattern.lineAnchors && OTHER_LINE_BREAKS.test(text));
}

function plain(match: RegExpMatchArray, named: boolean): RegexMatch {
  if (!named || !match.groups) return { text: match[0] };
  const groups: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(match.groups)) groups[name] = value ?? undefined;
  return { text: match[0], groups };
}

function hasNames(re2: RE2JS): boolean {
  return Object.keys(re2.namedGroups()).length > 0;
}

const TOO_LONG: RegexRun = { ok: false, reason: `the text is longer than ${REGEX_MAX_INPUT} characters, the limit for regex extraction` };

/** Every match (`all`) or the first, bounded in input; RE2 where it can, else the JavaScript RegExp. Never throws. */
export function matchPattern(pattern: CompiledPattern, text: string, all: boolean): RegexRun {
  if (text.length > REGEX_MAX_INPUT) return TOO_LONG;
  if (!re2Runs(pattern, text)) return runRegex(text, pattern.js, all);
  const named = hasNames(pattern.re2);
  if (all) return { ok: true, matches: Array.from(pattern.re2.matchAll(text), (m) => plain(m, named)) };
  const first = pattern.re2.exec(text) as RegExpMatchArray | null;
  return { ok: true, matches: first ? [plain(first, named)] : [] };
}

/** The first match in each text (undefined where none), for list items. */
export function matchEach(pattern: CompiledPattern, texts: readonly string[]): { ok: true; matches: (RegexMatch | undefined)[] } | { ok: false; reason: string } {
  const total = texts.reduce((n, t) => n + t.length, 0);
  if (total > REGEX_MAX_INPUT) return TOO_LONG as { ok: false; reason: string };
  if (!texts.every((t) => re2Runs(pattern, t))) return runRegexEach(texts, pattern.js);
  const re2 = pattern.re2!;
  const named = hasNames(re2);
  return { ok: true, matches: texts.map((t) => {
    const m = re2.exec(t) as RegExpMatchArray | null;
    return m ? plain(m, named) : undefined;
  }) };
}
