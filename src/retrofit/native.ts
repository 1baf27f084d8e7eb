/**
 * structuredContent that an upstream produced for a tool without a configured outputSchema: served the
 * way tools/list served that tool's declared schema (remembered in NativeMemory), or, when the gateway has
 * not seen the list (e.g. it restarted), decided by the value itself: a non-object value is not an object root.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { type LegacyRoots } from './settings.js';
import { hasTextBlock } from './content.js';
import { eraOf, type Era } from '../protocol/era.js';
import { decisionKey, type NativeDecision, type NativeMemory } from './native-memory.js';
import { projectionFor, projectResult } from './project.js';
import { RESULT_KEY } from './wrap.js';

/** The eras a tools/list decision is kept for, in the order another era's decision is consulted. */
export const DECISION_ERAS: readonly Era[] = ['modern', 'object-only', 'none'];

/** `{result: X}` and nothing else: the shape a modern upstream gives a non-object value for object-only sessions. */
function isWrappedValue(value: Json): boolean {
  return isJsonObject(value) && Object.keys(value).length === 1 && RESULT_KEY in value;
}

/**
 * What the list told about the tool, for this revision's era. When only another era listed it (a list through
 * another replica, say), that is the next best evidence; but a modern upstream wraps non-object values
 * itself for object-only sessions, so a `{result: X}` value after a non-object decision is already in shape
 * (for `wrap`; `drop` drops it either way).
 */
function decide(memory: NativeMemory, tool: string, revision: string, value: Json, legacyRoots: LegacyRoots): NativeDecision | undefined {
  const era = eraOf(revision);
  const own = memory.decisions.get(decisionKey(tool, era));
  if (own !== undefined) return own;
  for (const other of DECISION_ERAS) {
    if (other === era) continue;
    const seen = memory.decisions.get(decisionKey(tool, other));
    if (seen === undefined) continue;
    return seen === 'non-object' && era === 'object-only' && legacyRoots === 'wrap' && isWrappedValue(value) ? 'object' : seen;
  }
  return undefined;
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
  const decision = decide(memory, tool, revision, value, legacyRoots);
  // A schema we removed from tools/list leaves clients nothing to validate against: no structuredContent.
  const projection = decision === 'removed'
    ? 'drop'
    : projectionFor(revision, decision === undefined ? isJsonObject(value) : decision === 'object', legacyRoots);
  if (projection === 'as-is' && hasTextBlock(result)) return result;
  return projectResult(result, value, projection);
}
