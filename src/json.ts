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
