/**
 * The two extraction steps whose running time the engine cannot bound: a configured pattern RE2 cannot run
 * (lookaround, backreferences: see pattern.ts) matched by a backtracking JavaScript RegExp, and a YAML parse
 * (the yaml package is superlinear on some inputs). They run here, directly and synchronously, like the rest
 * of the engine — which is why a tool that uses them carries `CompiledTool.isolate`: the rewrite pipeline
 * (src/pipeline/rewrite.ts) runs such a tool's retrofits only on its isolation worker thread, under a
 * deadline, never on the event loop. Input length is bounded here all the same, which bounds the copy to
 * that worker too.
 */
import { parseYamlTree, type YamlTreeRun } from './yaml-tree.js';

/** Longest text (UTF-16 code units) a regex reading accepts. */
export const REGEX_MAX_INPUT = 1024 * 1024;
/** Longest text a YAML reading accepts. */
export const YAML_MAX_INPUT = 1024 * 1024;

/** Matches as plain data: the matched text and the named groups. */
export interface RegexMatch {
  readonly text: string;
  readonly groups?: Readonly<Record<string, string | undefined>>;
}

export type RegexRun = { readonly ok: true; readonly matches: readonly RegexMatch[] } | { readonly ok: false; readonly reason: string };

const plain = (m: RegExpExecArray): RegexMatch => ({ text: m[0], ...(m.groups && { groups: { ...m.groups } }) });

function failed(err: unknown): { ok: false; reason: string } {
  return { ok: false, reason: `the pattern failed: ${err instanceof Error ? err.message : String(err)}` };
}

/** Run `regex` on `text`: every match when `all`, else the first. Never throws. */
export function runRegex(text: string, regex: RegExp, all: boolean): RegexRun {
  if (text.length > REGEX_MAX_INPUT) return { ok: false, reason: `the text is longer than ${REGEX_MAX_INPUT} characters, the limit for regex extraction` };
  try {
    // A fresh RegExp: a global one keeps lastIndex between calls.
    const re = new RegExp(regex.source, regex.flags);
    if (all) return { ok: true, matches: Array.from(text.matchAll(re), plain) };
    const m = re.exec(text);
    return { ok: true, matches: m ? [plain(m)] : [] };
  } catch (err) {
    return failed(err);
  }
}

/** The first match of `regex` in each text (undefined where none). Never throws. */
export function runRegexEach(texts: readonly string[], regex: RegExp): { ok: true; matches: (RegexMatch | undefined)[] } | { ok: false; reason: string } {
  try {
    const re = new RegExp(regex.source, regex.flags.replace('g', ''));
    return {
      ok: true,
      matches: texts.map((t) => {
        if (t.length > REGEX_MAX_INPUT) return undefined;
        const m = re.exec(t);
        return m ? plain(m) : undefined;
      }),
    };
  } catch (err) {
    return failed(err);
  }
}

/** Parse `text` into a YamlNode tree (yaml-tree.ts). Never throws. */
export function runYaml(text: string): YamlTreeRun {
  if (text.length > YAML_MAX_INPUT) return { ok: false, reason: `the text is longer than ${YAML_MAX_INPUT} characters, the limit for YAML extraction` };
  return parseYamlTree(text);
}
