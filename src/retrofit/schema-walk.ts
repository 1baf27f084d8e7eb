/**
 * Walking a JSON Schema alongside a value: which subschemas apply at a property or an item, and which JSON
 * types they admit there. Coercion and the schema-guided typing of text scalars (YAML, cells, items) both
 * follow the data with these, so the walk terminates; `$ref` chains are bounded, and resolved as a validator
 * does (./ref-resolve.ts: embedded resources, anchors). Shallow on purpose: it
 * answers "what does the schema want here", and ajv still decides.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { resolveRef } from './ref-resolve.js';

const MAX_REF_HOPS = 32;

/** The schema and everything it unconditionally applies: resolved `$ref`s and `allOf` members. */
export function applicable(schema: Json | undefined, root: Json, hops = 0): JsonObject[] {
  if (schema === true) return [{}];
  if (!isJsonObject(schema) || hops > MAX_REF_HOPS) return [];
  const out = [schema];
  if (typeof schema.$ref === 'string') out.push(...applicable(resolveRef(root, schema, schema.$ref), root, hops + 1));
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf) out.push(...applicable(s, root, hops + 1));
  return out;
}

/** The `type`s the schemas name (empty: none names one). */
export function typesOf(schemas: readonly JsonObject[]): Set<string> {
  const types = new Set<string>();
  for (const s of schemas) {
    if (typeof s.type === 'string') types.add(s.type);
    else if (Array.isArray(s.type)) for (const t of s.type) if (typeof t === 'string') types.add(t);
  }
  return types;
}

/** The `anyOf`/`oneOf` alternatives of the schemas, each with what it applies. */
export function branches(schemas: readonly JsonObject[], root: Json): JsonObject[][] {
  const out: JsonObject[][] = [];
  for (const s of schemas) {
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = s[key];
      if (Array.isArray(list)) for (const b of list) out.push(applicable(b, root));
    }
  }
  return out;
}

/** The schemas that apply to item `index` of an array under `schemas`. */
export function itemSchemas(schemas: readonly JsonObject[], index: number, root: Json): JsonObject[] {
  const out: JsonObject[] = [];
  for (const s of schemas) {
    const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    if (tuple && index < tuple.length) out.push(...applicable(tuple[index], root));
    else if (isJsonObject(s.items) || typeof s.items === 'boolean') out.push(...applicable(s.items, root));
    else if (Array.isArray(s.items) && isJsonObject(s.additionalItems)) out.push(...applicable(s.additionalItems, root));
  }
  return out;
}

/** The schemas that apply to property `key` of an object under `schemas`. */
export function propertySchemas(schemas: readonly JsonObject[], key: string, root: Json): JsonObject[] {
  const out: JsonObject[] = [];
  for (const s of schemas) {
    if (isJsonObject(s.properties) && Object.hasOwn(s.properties, key)) {
      out.push(...applicable(s.properties[key], root));
      continue;
    }
    let matched = false;
    if (isJsonObject(s.patternProperties)) {
      for (const [pattern, sub] of Object.entries(s.patternProperties)) {
        if (safeTest(pattern, key)) {
          out.push(...applicable(sub, root));
          matched = true;
        }
      }
    }
    if (!matched && (isJsonObject(s.additionalProperties) || s.additionalProperties === true)) out.push(...applicable(s.additionalProperties, root));
  }
  return out;
}

/**
 * What the schemas at one location want: `any` when nothing there constrains the type (no schema, or one
 * branch of an anyOf that names no type); otherwise the named types, branches included.
 */
export interface Wants {
  readonly any: boolean;
  readonly types: ReadonlySet<string>;
}

const ANYTHING: Wants = { any: true, types: new Set() };

export function wantsAt(schemas: readonly JsonObject[], root: Json): Wants {
  if (schemas.length === 0) return ANYTHING;
  const types = typesOf(schemas);
  const alternatives = branches(schemas, root);
  if (types.size > 0) return { any: false, types };
  if (alternatives.length === 0) return ANYTHING;
  const union = new Set<string>();
  for (const branch of alternatives) {
    const t = typesOf(branch);
    if (t.size === 0) return ANYTHING;
    for (const x of t) union.add(x);
  }
  return { any: false, types: union };
}

// patternProperties come from configured schemas (a finite set): compile each once.
const patterns = new Map<string, RegExp | null>();

function safeTest(pattern: string, key: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    if (patterns.size < 1000) patterns.set(pattern, re);
  }
  return re !== null && re.test(key);
}
