/**
 * `coerce: true`: strings become numbers, integers or booleans where the schema asks for those and not for a
 * string. Nothing else is coerced (ajv's coerceTypes would also turn numbers into strings and nulls into "").
 * The walk follows the data, so it terminates; `$ref` chains are bounded.
 */
import { isJsonObject, type Json, type JsonObject, type JsonSchema } from '../json.js';
import { resolveLocalRef } from './pointer.js';

const NUMBER_RE = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const MAX_REF_HOPS = 32;

/** The schema and everything it unconditionally applies: resolved `$ref`s and `allOf` members. */
function applicable(schema: Json | undefined, root: Json, hops = 0): JsonObject[] {
  if (!isJsonObject(schema) || hops > MAX_REF_HOPS) return [];
  const out = [schema];
  if (typeof schema.$ref === 'string') out.push(...applicable(resolveLocalRef(root, schema.$ref), root, hops + 1));
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf) out.push(...applicable(s, root, hops + 1));
  return out;
}

function typesOf(schemas: readonly JsonObject[]): Set<string> {
  const types = new Set<string>();
  for (const s of schemas) {
    if (typeof s.type === 'string') types.add(s.type);
    else if (Array.isArray(s.type)) for (const t of s.type) if (typeof t === 'string') types.add(t);
  }
  return types;
}

function branches(schemas: readonly JsonObject[], root: Json): JsonObject[][] {
  const out: JsonObject[][] = [];
  for (const s of schemas) {
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = s[key];
      if (Array.isArray(list)) for (const b of list) out.push(applicable(b, root));
    }
  }
  return out;
}

function jsonType(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function coerceString(text: string, types: ReadonlySet<string>): Json {
  if (types.size === 0 || types.has('string')) return text;
  const trimmed = text.trim();
  if ((types.has('number') || types.has('integer')) && NUMBER_RE.test(trimmed)) {
    const n = Number(trimmed);
    if (types.has('number') || Number.isInteger(n)) return n;
  }
  if (types.has('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  return text;
}

function coerceWith(value: Json, schemas: JsonObject[], root: Json): Json {
  let types = typesOf(schemas);
  let scope = schemas;
  const alternatives = branches(schemas, root);
  if (alternatives.length > 0) {
    // With anyOf/oneOf, coerce a string only when no branch takes strings; structures follow the first
    // branch whose type fits the value.
    const branchTypes = alternatives.map(typesOf);
    if (typeof value === 'string' && types.size === 0) {
      if (branchTypes.some((t) => t.size === 0 || t.has('string'))) return value;
      types = new Set(branchTypes.flatMap((t) => [...t]));
    } else if (typeof value === 'object' && value !== null) {
      const kind = jsonType(value);
      const fit = branchTypes.findIndex((t) => t.has(kind));
      if (fit >= 0) scope = [...schemas, ...alternatives[fit]!];
    }
  }
  if (typeof value === 'string') return coerceString(value, types);
  if (Array.isArray(value)) return value.map((item, i) => coerceWith(item, itemSchemas(scope, i, root), root));
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      const sub = propertySchemas(scope, key, root);
      Object.defineProperty(out, key, { value: sub.length > 0 ? coerceWith(item, sub, root) : item, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

function itemSchemas(schemas: readonly JsonObject[], index: number, root: Json): JsonObject[] {
  const out: JsonObject[] = [];
  for (const s of schemas) {
    const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    if (tuple && index < tuple.length) out.push(...applicable(tuple[index], root));
    else if (isJsonObject(s.items)) out.push(...applicable(s.items, root));
    else if (Array.isArray(s.items) && isJsonObject(s.additionalItems)) out.push(...applicable(s.additionalItems, root));
  }
  return out;
}

function propertySchemas(schemas: readonly JsonObject[], key: string, root: Json): JsonObject[] {
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
    if (!matched && isJsonObject(s.additionalProperties)) out.push(...applicable(s.additionalProperties, root));
  }
  return out;
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

/** A copy of `value` with strings coerced to the number/integer/boolean types `schema` asks for. */
export function coerce(value: Json, schema: JsonSchema): Json {
  return coerceWith(value, applicable(schema, schema), schema);
}
