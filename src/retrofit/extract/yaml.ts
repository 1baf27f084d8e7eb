/**
 * `yaml`: `key: value` reports parsed with the yaml package (core schema: no timestamps, no custom tags,
 * aliases bounded), on the extraction guard's worker (src/retrofit/extract/regex-guard.ts). Reports that are not valid YAML ("Status: ok: yes") fall back to one `key: value`
 * pair per line when every non-blank line has that shape.
 */
import type { Json, JsonObject } from '../../json.js';
import { sanitize, setField } from '../safe-json.js';
import { runYaml } from './regex-guard.js';

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

/**
 * The YAML reading of `text`. The parser runs on the guard's worker, bounded in time and input; when it
 * was stopped, the reason goes onto `notes` and there is no reading (not even the line-by-line one).
 */
export function extractYaml(text: string, notes?: string[]): Json | undefined {
  const parsed = runYaml(text);
  if (parsed.ok) {
    const value = parsed.value;
    if (value !== null && typeof value === 'object') return sanitize(value);
  } else if (parsed.invalid !== true) {
    notes?.push(parsed.reason);
    return undefined;
  }
  // Not YAML (or a scalar): try the line-by-line reading.
  return lines(text);
}
