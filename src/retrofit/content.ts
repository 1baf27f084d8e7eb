/**
 * Reading and extending a CallToolResult's `content`: which blocks count as text for extraction, whether a
 * text block exists, and the JSON text block added when structuredContent has none.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';

/** True for `application/json`, `text/json` and any `+json` suffix type; parameters are ignored. */
export function isJsonMediaType(mediaType: unknown): boolean {
  if (typeof mediaType !== 'string') return false;
  const essence = mediaType.split(';', 1)[0]!.trim().toLowerCase();
  const slash = essence.indexOf('/');
  if (slash <= 0) return false;
  const type = essence.slice(0, slash);
  const subtype = essence.slice(slash + 1);
  if (type !== 'application' && type !== 'text') return false;
  return subtype === 'json' || subtype.endsWith('+json');
}

/** The blocks of `content`, or [] when it is missing or not an array. */
export function blocksOf(result: JsonObject): Json[] {
  return Array.isArray(result.content) ? result.content : [];
}

/**
 * The texts extraction reads, one per block, in order: text blocks and embedded `resource` blocks whose
 * mime type is JSON. Images, audio and other resources are not text.
 */
export function textsOf(result: JsonObject): string[] {
  const texts: string[] = [];
  for (const block of blocksOf(result)) {
    if (!isJsonObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'resource' && isJsonObject(block.resource)) {
      const { resource } = block;
      if (typeof resource.text === 'string' && isJsonMediaType(resource.mimeType)) texts.push(resource.text);
    }
  }
  return texts;
}

/** True when the result already has a `text` content block. */
export function hasTextBlock(result: JsonObject): boolean {
  return blocksOf(result).some((block) => isJsonObject(block) && block.type === 'text');
}

/** A copy of the result with a text block holding `value` as JSON appended, unless it has a text block. */
export function ensureTextBlock(result: JsonObject, value: Json): JsonObject {
  if (hasTextBlock(result)) return result;
  return { ...result, content: [...blocksOf(result), { type: 'text', text: JSON.stringify(value) }] };
}
