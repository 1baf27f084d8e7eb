/**
 * `scalar`: when the schema wants a number, integer, boolean, null or string, the trimmed text is that
 * scalar ("17" → 17, "true" → true); the raw string is offered as well so a `string` schema keeps text that
 * merely looks like a number or JSON.
 */
import type { Json } from '../../json.js';

export { wantsScalar } from '../root-types.js';

const NUMBER_RE = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** The scalar readings of a text, most specific first. */
export function extractScalars(text: string): Json[] {
  const trimmed = text.trim();
  const out: Json[] = [];
  if (NUMBER_RE.test(trimmed)) out.push(Number(trimmed));
  else if (trimmed === 'true' || trimmed === 'True') out.push(true);
  else if (trimmed === 'false' || trimmed === 'False') out.push(false);
  else if (trimmed === 'null' || trimmed === 'None') out.push(null);
  out.push(trimmed);
  if (trimmed !== text) out.push(text);
  return out;
}
