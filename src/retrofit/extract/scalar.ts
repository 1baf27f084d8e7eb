/**
 * `scalar`: when the schema wants a number, integer, boolean, null or string. The text trimmed is read as
 * that scalar ("17" → 17, "true" → true), and the text itself is offered as a string, exactly as it came:
 * never trimmed, since a string root is the upstream's text (a file's content keeps its newline). A number
 * a JSON number cannot hold exactly is not offered as one (it would be a different number).
 */
import type { Json } from '../../json.js';
import { readNumber } from '../../exact-number.js';

/** The scalar readings of a text, most specific first; `inexact` is set when the text is such a number. */
export function extractScalars(text: string): { readonly values: Json[]; readonly inexact: boolean } {
  const trimmed = text.trim();
  const values: Json[] = [];
  const number = readNumber(trimmed);
  if (number.ok) values.push(number.value);
  else if (trimmed === 'true' || trimmed === 'True') values.push(true);
  else if (trimmed === 'false' || trimmed === 'False') values.push(false);
  else if (trimmed === 'null' || trimmed === 'None') values.push(null);
  values.push(text);
  return { values, inexact: !number.ok && number.inexact };
}
