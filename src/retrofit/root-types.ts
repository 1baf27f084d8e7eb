/**
 * Which JSON types a schema's root admits, looked at shallowly (type, $ref, anyOf/oneOf, const/enum). The
 * extractors use it to decide whether a scalar or a one-item array reading of the text is worth offering;
 * validation still decides.
 */
import { isJsonObject, type Json, type JsonSchema } from '../json.js';
import { resolveRef } from './ref-resolve.js';

const ALL_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'];
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
/** Keywords that say nothing about the value's type. */
const ANNOTATIONS = new Set(['$schema', '$id', '$comment', '$defs', 'definitions', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

function jsonType(v: Json): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}

function collect(schema: Json | undefined, root: Json, depth: number, types: Set<string>): void {
  if (schema === true) {
    for (const t of ALL_TYPES) types.add(t);
    return;
  }
  if (!isJsonObject(schema) || depth > 8) return;
  // An unconstrained schema ({} or annotations only) takes any value.
  if (Object.keys(schema).every((k) => ANNOTATIONS.has(k))) {
    for (const t of ALL_TYPES) types.add(t);
    return;
  }
  if (typeof schema.$ref === 'string') collect(resolveRef(root, schema, schema.$ref), root, depth + 1, types);
  if (typeof schema.type === 'string') types.add(schema.type);
  else if (Array.isArray(schema.type)) for (const t of schema.type) if (typeof t === 'string') types.add(t);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) for (const s of list) collect(s, root, depth + 1, types);
  }
  if (schema.const !== undefined) types.add(jsonType(schema.const));
  if (Array.isArray(schema.enum)) for (const v of schema.enum) types.add(jsonType(v));
}

/** The JSON types (`integer` included) the root of `schema` may admit. */
export function rootTypes(schema: JsonSchema): ReadonlySet<string> {
  return typesOfAll([schema], schema);
}

/** The JSON types any of `schemas` (subschemas of `root`, whose `$ref`s they resolve in) may admit at its root. */
export function typesOfAll(schemas: readonly Json[], root: Json): ReadonlySet<string> {
  const types = new Set<string>();
  for (const schema of schemas) collect(schema, root, 0, types);
  return types;
}

/** True when `types` admit a scalar value. */
export function admitsScalar(types: ReadonlySet<string>): boolean {
  return [...types].some((t) => SCALAR_TYPES.has(t));
}

