/**
 * `relaxed`: JSON as people and Python write it — single quotes, `True/False/None`, trailing commas,
 * comments, unquoted keys — repaired by jsonrepair. jsonrepair would also "complete" truncated JSON, which
 * must fail instead, so only a balanced bracketed text (the whole text, or its single bracketed span) is
 * repaired.
 */
import { jsonrepair } from 'jsonrepair';
import type { Json } from '../../json.js';
import { parseJsonExact } from './exact-json.js';
import { topLevelSpans } from './spans.js';

// The first token inside the brackets must look like data, or jsonrepair turns prose such as
// "file [x] not found" into ["x"]: an object starts with a (possibly unquoted) key, an array with a value.
const OBJECT_START = /^\{\s*(?:\/[/*]|["'}]|[A-Za-z_$][\w$]*\s*:)/;
const ARRAY_START = /^\[\s*(?:\/[/*]|["'{[\]\-\d]|(?:true|false|null|True|False|None)\b)/;

function balancedBody(text: string): string | undefined {
  const spans = topLevelSpans(text, `"'`, 2);
  if (spans.length !== 1) return undefined;
  const span = spans[0]!;
  const body = text.slice(span.start, span.end);
  return (body.startsWith('{') ? OBJECT_START : ARRAY_START).test(body) ? body : undefined;
}

export function extractRelaxed(text: string): Json | undefined {
  const body = balancedBody(text);
  if (body === undefined) return undefined;
  let repaired: string;
  try {
    repaired = jsonrepair(body);
  } catch {
    return undefined;
  }
  const parsed = parseJsonExact(repaired);
  if (!parsed.ok) return undefined;
  const value = parsed.value;
  return typeof value === 'object' && value !== null ? value : undefined;
}
