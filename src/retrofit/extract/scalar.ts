/**
 * `scalar`: when the schema wants a number, integer, boolean, null or string, the trimmed text is that
 * scalar ("17" → 17, "true" → true); the raw string is offered as well so a `string` schema keeps text that
 * merely looks like a number or JSON.
 */
import type { Json, JsonObject, JsonSchema } from '../../config/types.js';
import { resolveLocalRef } from '../pointer.js';

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const NUMBER_RE = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords that say nothing about the value's type. */
const ANNOTATIONS = new Set(['$schema', '$id', '$comment', '$defs', 'definitions', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

function rootTypes(schema: Json | undefined, root: Json, depth = 0): string[] {
  if (schema === true) return [...SCALAR_TYPES];
  if (!isObject(schema) || depth > 8) return [];
  // An unconstrained schema ({} or annotations only) takes any value, scalars included.
  if (Object.keys(schema).every((k) => ANNOTATIONS.has(k))) return [...SCALAR_TYPES];
  const types: string[] = [];
  if (typeof schema.$ref === 'string') types.push(...rootTypes(resolveLocalRef(root, schema.$ref), root, depth + 1));
  if (typeof schema.type === 'string') types.push(schema.type);
  else if (Array.isArray(schema.type)) for (const t of schema.type) if (typeof t === 'string') types.push(t);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) for (const s of list) types.push(...rootTypes(s, root, depth + 1));
  }
  for (const key of ['const', 'enum'] as const) {
    const values = key === 'const' ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : [];
    for (const v of values) if (v !== undefined && (v === null || typeof v !== 'object')) types.push(v === null ? 'null' : typeof v);
  }
  return types;
}

/** True when the schema's root admits a scalar value. */
export function wantsScalar(schema: JsonSchema): boolean {
  return rootTypes(schema, schema).some((t) => SCALAR_TYPES.has(t));
}

/** The scalar readings of a text, most specific first. */
export function extractScalars(text: string): Json[] {
  const trimmed = text.trim();
  const out: Json[] = [];
  if (NUMBER_RE.test(trimmed)) out.push(Number(trimmed));
  else if (trimmed === 'true' || trimmed === 'True') out.push(true);
  else if (trimmed === 'false' || trimmed === 'False') out.push(false);
  else if (trimmed === 'null' || trimmed === 'None') out.push(null);
  out.push(trimmed);
  if (trimmed !== text) out.push(text);
  return out;
}
