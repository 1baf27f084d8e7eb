/**
 * `regex`: named groups become fields. With `all`, every match is an element of an array and no match is an
 * empty array; otherwise the first match is the value and no match is nothing. A pattern without named
 * groups yields the matched text. The RegExp is compiled once at config load (with `g` when `all`); it runs
 * through the guard (src/retrofit/extract/regex-guard.ts), bounded in input length and time.
 */
import type { Json, JsonObject } from '../../json.js';
import { setField } from '../safe-json.js';
import { runRegex, type RegexMatch } from './regex-guard.js';

function valueOf(match: RegexMatch): Json {
  if (!match.groups) return match.text;
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(match.groups)) if (value !== undefined) setField(out, name, value);
  return out;
}

/**
 * The regex reading of `text`, or undefined. When the guard refused or stopped the match, its reason is
 * pushed onto `notes` (so the outcome says why, instead of "does not match").
 */
export function extractRegex(text: string, regex: RegExp, all: boolean, notes?: string[]): Json | undefined {
  const run = runRegex(text, regex, all);
  if (!run.ok) {
    notes?.push(run.reason);
    return undefined;
  }
  if (all) return run.matches.map(valueOf);
  const first = run.matches[0];
  return first ? valueOf(first) : undefined;
}
