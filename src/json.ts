/**
 * JSON values as the gateway handles them, and the one guard for plain objects. Every layer uses these;
 * they belong to none of them.
 */

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };
/** A JSON Schema document (object form; boolean schemas are accepted as `true`/`false`). */
export type JsonSchema = JsonObject | boolean;

/** True for a plain JSON object (not null, not an array): the one guard every module uses. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when arrays and objects in `value` nest deeper than `limit` (the value itself is level 1). Iterative,
 * with an explicit stack: it is asked exactly about values too deep for anything recursive.
 */
export function nestsDeeperThan(value: Json, limit: number): boolean {
  const stack: [Json, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
