/**
 * `regex`: named groups become fields. With `all`, every match is an element of an array and no match is an
 * empty array; otherwise the first match is the value and no match is nothing. A pattern without named
 * groups yields the matched text. Group values are the matched text, exactly. The pattern is compiled once
 * at config load (pattern.ts): RE2 where it can, else a JavaScript RegExp (and the tool is isolated).
 */
import type { Json, JsonObject } from '../../json.js';
import { setField } from '../safe-json.js';
import { matchPattern, type CompiledPattern } from './pattern.js';
import type { RegexMatch } from './unbounded.js';

/** One match as a value: its named groups as fields (unmatched groups left out), or its text. */
export function matchValue(match: RegexMatch): Json {
  if (!match.groups) return match.text;
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(match.groups)) if (value !== undefined) setField(out, name, value);
  return out;
}

/**
 * The regex reading of `text`, or undefined. When the match was refused or stopped (input limit, deadline),
 * its reason is pushed onto `notes` (so the outcome says why, instead of "does not match").
 */
export function extractRegex(text: string, pattern: CompiledPattern, all: boolean, notes?: string[]): Json | undefined {
  const run = matchPattern(pattern, text, all);
  if (!run.ok) {
    notes?.push(run.reason);
    return undefined;
  }
  if (all) return run.matches.map(matchValue);
  const first = run.matches[0];
  return first ? matchValue(first) : undefined;
}
