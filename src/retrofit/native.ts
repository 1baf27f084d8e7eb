/**
 * structuredContent that an upstream produced for a tool without a configured outputSchema: served the
 * way tools/list served that tool's declared schema (remembered in NativeMemory), or, when the gateway has
 * not seen the list (e.g. it restarted), decided by the value itself: a non-object value is not an object root.
 */
import type { Json, JsonObject, LegacyRoots } from '../config/types.js';
import { hasTextBlock } from './content.js';
import type { NativeMemory } from './native-memory.js';
import { projectionFor, projectResult } from './project.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Project a native result for the revision; the same object when nothing needs to change. */
export function projectNativeResult(
  result: JsonObject,
  tool: string,
  memory: NativeMemory,
  legacyRoots: LegacyRoots,
  revision: string,
): JsonObject {
  if (result.structuredContent === undefined) return result;
  const value = result.structuredContent as Json;
  const decision = memory.decisions.get(tool);
  // A schema we removed from tools/list leaves clients nothing to validate against: no structuredContent.
  const projection = decision === 'removed'
    ? 'drop'
    : projectionFor(revision, decision === undefined ? isObject(value) : decision === 'object', legacyRoots);
  if (projection === 'as-is' && hasTextBlock(result)) return result;
  return projectResult(result, value, projection);
}
