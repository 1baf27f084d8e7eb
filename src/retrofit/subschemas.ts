/**
 * The subschemas of a JSON Schema, with where each is: under `properties`, `items`, `allOf` and every other
 * keyword whose value is a schema, a map of them or a list of them (every draft's). Data keywords (`enum`,
 * `const`, `default`, `examples`) and unknown keys are not schemas and are not entered. Bounded in depth, as
 * the schemas that reach it (configured ones) are.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';

/** A step of a path into a schema: a key, or an index into a list of subschemas. */
export type Segment = string | number;

/** Keywords whose value is one subschema, a map of subschemas, or a list of them. */
export const ONE: ReadonlySet<string> = new Set(['items', 'additionalItems', 'additionalProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
export const MAP: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
export const LIST: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);

/** Deeper than this, a schema is not walked further (the config loader bounds schemas anyway). */
const MAX_DEPTH = 64;

/**
 * Call `visit` for the schema and each of its object subschemas, parents first, in document order. `keep`
 * (default: every key) says which of a node's keys may lead to subschemas.
 */
export function eachSubschema(schema: Json, visit: (node: JsonObject, path: readonly Segment[]) => void, keep: (key: string) => boolean = () => true, path: readonly Segment[] = [], depth = 0): void {
  if (!isJsonObject(schema) || depth > MAX_DEPTH) return;
  visit(schema, path);
  for (const [key, value] of Object.entries(schema)) {
    if (!keep(key)) continue;
    const here = [...path, key];
    if (ONE.has(key) && isJsonObject(value)) eachSubschema(value, visit, keep, here, depth + 1);
    if (MAP.has(key) && isJsonObject(value)) for (const [name, sub] of Object.entries(value)) eachSubschema(sub, visit, keep, [...here, name], depth + 1);
    if (LIST.has(key) && Array.isArray(value)) value.forEach((sub, i) => eachSubschema(sub, visit, keep, [...here, i], depth + 1));
  }
}
