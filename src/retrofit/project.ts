/**
 * Era projection: what a client of a given revision may receive.
 * - modern (2026-07-28+): any schema root, any structuredContent.
 * - object-only (2025-06-18, 2025-11-25): object roots as is; other roots wrapped (`legacyRoots: wrap`) as
 *   {result: ...} or dropped (`drop`) with the JSON left in text.
 * - none (2025-03-26 and older): no outputSchema, no structuredContent; the JSON stays in text.
 */
import type { Json, JsonObject, JsonSchema } from '../json.js';
import type { LegacyRoots } from './settings.js';
import { eraOf } from '../protocol/era.js';
import { ensureTextBlock } from './content.js';
import { asObjectSchema, wrapValue } from './wrap.js';

/** How an outputSchema and its values are served to one client. */
export type Projection = 'as-is' | 'wrap' | 'drop';

/**
 * The projection for a revision, given whether the schema's root is an object. Same inputs, same answer:
 * this is what keeps tools/list and tools/call consistent.
 */
export function projectionFor(revision: string, objectRoot: boolean, legacyRoots: LegacyRoots): Projection {
  const era = eraOf(revision);
  if (era === 'modern') return 'as-is';
  if (era === 'none') return 'drop';
  if (objectRoot) return 'as-is';
  return legacyRoots;
}

/**
 * A tool definition with its outputSchema projected (`wrapped` is the precomputed wrapped schema). A boolean
 * schema served as is goes out as its object equivalent: no client's Tool type takes a boolean there.
 */
export function projectToolSchema(tool: JsonObject, schema: JsonSchema, projection: Projection, wrapped: () => JsonObject): JsonObject {
  const { outputSchema: _ignored, ...rest } = tool;
  if (projection === 'drop') return rest;
  return { ...tool, outputSchema: projection === 'wrap' ? wrapped() : asObjectSchema(schema) };
}

/**
 * A result carrying structuredContent `value`, projected. Every result that keeps structuredContent also
 * carries a text block, and a dropped value stays readable as JSON text.
 */
export function projectResult(result: JsonObject, value: Json, projection: Projection): JsonObject {
  const withText = ensureTextBlock(result, value);
  if (projection === 'drop') {
    const { structuredContent: _dropped, ...rest } = withText;
    return rest;
  }
  return { ...withText, structuredContent: projection === 'wrap' ? wrapValue(value) : value };
}
