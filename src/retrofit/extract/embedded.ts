/**
 * `embedded`: the one complete JSON object or array inside prose ("Here is the weather: {...}. Enjoy!").
 * Spans come from string-aware bracket matching; spans that do not parse (e.g. "[citation needed]") are
 * prose. Two or more JSON values make the text ambiguous, and then nothing is extracted.
 */
import type { Json } from '../../config/types.js';
import { parseJson } from '../safe-json.js';
import { topLevelSpans } from './spans.js';

export function extractEmbedded(text: string): Json | undefined {
  let found: Json | undefined;
  for (const span of topLevelSpans(text)) {
    const parsed = parseJson(text.slice(span.start, span.end));
    if (!parsed.ok) continue;
    if (found !== undefined) return undefined;
    found = parsed.value;
  }
  return found;
}
