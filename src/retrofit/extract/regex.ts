/**
 * `regex`: named groups become fields. With `all`, every match is an element of an array and no match is an
 * empty array; otherwise the first match is the value and no match is nothing. A pattern without named
 * groups yields the matched text. The RegExp is compiled once at config load (with `g` when `all`).
 */
import type { Json, JsonObject } from '../../config/types.js';
import { setField } from '../safe-json.js';

function valueOf(match: RegExpExecArray | RegExpMatchArray): Json {
  if (!match.groups) return match[0];
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(match.groups)) if (value !== undefined) setField(out, name, value);
  return out;
}

export function extractRegex(text: string, regex: RegExp, all: boolean): Json | undefined {
  if (all) {
    const values: Json[] = [];
    for (const match of text.matchAll(regex)) values.push(valueOf(match));
    return values;
  }
  regex.lastIndex = 0;
  const match = regex.exec(text);
  return match ? valueOf(match) : undefined;
}
