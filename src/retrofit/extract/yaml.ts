/**
 * `yaml`: `key: value` reports parsed with the yaml package (core schema: no timestamps, no custom tags,
 * aliases bounded). Reports that are not valid YAML ("Status: ok: yes") fall back to one `key: value`
 * pair per line when every non-blank line has that shape.
 */
import { parse } from 'yaml';
import type { Json, JsonObject } from '../../config/types.js';
import { sanitize, setField } from '../safe-json.js';

const LINE_RE = /^\s*([^:]+?)\s*:\s*(.*?)\s*$/;

function lines(text: string): JsonObject | undefined {
  const out: JsonObject = {};
  let any = false;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const m = LINE_RE.exec(line);
    if (!m) return undefined;
    setField(out, m[1]!, m[2]!);
    any = true;
  }
  return any ? out : undefined;
}

export function extractYaml(text: string): Json | undefined {
  try {
    const value: unknown = parse(text, { schema: 'core', maxAliasCount: 100, logLevel: 'error', uniqueKeys: false, customTags: [] });
    if (value !== null && typeof value === 'object') return sanitize(value);
  } catch {
    // not YAML; try the line-by-line reading below
  }
  return lines(text);
}
