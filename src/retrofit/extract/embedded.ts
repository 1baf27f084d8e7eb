/**
 * `embedded`: the one complete JSON object or array inside prose ("Here is the weather: {...}. Enjoy!").
 * Spans come from string-aware bracket matching; spans that do not parse (e.g. "[citation needed]") are
 * prose. Two or more JSON values make the text ambiguous, and then nothing is extracted.
 *
 * The usual text — prose, one JSON value, prose without brackets — is read without the bracket scan (which
 * costs about half a JSON parse on a large value): when the stretch from the text's first bracket to its last
 * closer, with no bracket outside it, parses as JSON, it is that one value, since the scan would find it as
 * the text's only span. The scan's nesting bound (MAX_NESTING, src/retrofit/extract/spans.ts) guards the scan
 * itself; a value that parsed whole is read at any depth, as the `json` format reads one.
 */
import type { Json } from '../../json.js';
import { parseJsonExact } from './exact-json.js';
import { scanSpans, TOO_DEEP, type Span } from './spans.js';

const VALUE_START = /\s*(?:[{["\-\d\]]|true|false|null)/y;
const KEY_START = /\s*["}]/y;

/** A cheap look at the first token, so prose spans like "[note]" are not handed to the JSON parser. */
function mayBeJson(text: string, start: number): boolean {
  const re = text[start] === '{' ? KEY_START : VALUE_START;
  re.lastIndex = start + 1;
  return re.test(text);
}

/**
 * The stretch [first bracket, last closer] of `text` when nothing bracket-like lies outside it (an opener
 * after the last closer leaves the judgement to the scan's rules for unclosed and too deep brackets).
 */
function outerSpan(text: string): Span | undefined {
  const brace = text.indexOf('{');
  const square = text.indexOf('[');
  const start = brace === -1 ? square : square === -1 ? brace : Math.min(brace, square);
  if (start === -1) return undefined;
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']')) + 1;
  if (end <= start || text.lastIndexOf('{') >= end || text.lastIndexOf('[') >= end) return undefined;
  return { start, end };
}

export function extractEmbedded(text: string): Json | undefined {
  const outer = outerSpan(text);
  if (outer && mayBeJson(text, outer.start)) {
    const parsed = parseJsonExact(text.slice(outer.start, outer.end));
    if (parsed.ok) return parsed.value;
  }
  return scanned(text);
}

/** extractEmbedded by the bracket scan alone (exported for the test that compares the two ways). */
export function scanned(text: string): Json | undefined {
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
