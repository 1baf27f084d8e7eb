/**
 * `blocks`: several text blocks, each exactly one JSON value, form an array. Python SDK servers send a
 * returned list this way (one block per item).
 */
import type { Json } from '../../json.js';
import { parseJsonExact } from './exact-json.js';

export function extractBlocks(texts: readonly string[]): Json[] | undefined {
  if (texts.length < 2) return undefined;
  const values: Json[] = [];
  for (const text of texts) {
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    const parsed = parseJsonExact(trimmed);
    if (!parsed.ok) return undefined;
    values.push(parsed.value);
  }
  return values;
}
