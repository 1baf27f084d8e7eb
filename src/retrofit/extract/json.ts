/** `json`: the whole text is one JSON value. */
import type { Json } from '../../json.js';
import { parseJson } from '../safe-json.js';

export function extractJson(text: string): Json | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const parsed = parseJson(trimmed);
  return parsed.ok ? parsed.value : undefined;
}
