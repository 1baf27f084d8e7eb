/** `json`: the whole text is one JSON value (numbers kept exact: see exact-json.ts). */
import type { Json } from '../../json.js';
import { parseJsonExact } from './exact-json.js';

export function extractJson(text: string): Json | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const parsed = parseJsonExact(trimmed);
  return parsed.ok ? parsed.value : undefined;
}
