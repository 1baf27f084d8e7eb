/**
 * `embedded`: the one complete JSON object or array inside prose ("Here is the weather: {...}. Enjoy!").
 * Spans come from string-aware bracket matching; spans that do not parse (e.g. "[citation needed]") are
 * prose. Two or more JSON values make the text ambiguous, and then nothing is extracted.
 */
import type { Json } from '../../json.js';
import { parseJsonExact } from './exact-json.js';
import { scanSpans, TOO_DEEP } from './spans.js';

const VALUE_START = /\s*(?:[{["\-\d\]]|true|false|null)/y;
const KEY_START = /\s*["}]/y;

/** A cheap look at the first token, so prose spans like "[note]" are not handed to the JSON parser. */
function mayBeJson(text: string, start: number): boolean {
  const re = text[start] === '{' ? KEY_START : VALUE_START;
  re.lastIndex = start + 1;
  return re.test(text);
}

export function extractEmbedded(text: string): Json | undefined {
  let found: Json | undefined;
  // Lazily: a second JSON value settles it (ambiguous), so several JSON blocks cost two parses, not a full scan.
  for (const span of scanSpans(text)) {
    if (span === TOO_DEEP) return undefined;
    if (!mayBeJson(text, span.start)) continue;
    const parsed = parseJsonExact(text.slice(span.start, span.end));
    if (!parsed.ok) continue;
    if (found !== undefined) return undefined;
    found = parsed.value;
  }
  return found;
}
