/**
 * `coerce: true`: strings become numbers, integers or booleans where the schema asks for those and not for a
 * string. Nothing else is coerced (ajv's coerceTypes would also turn numbers into strings and nulls into "").
 * A string becomes a number only when the number is exactly what it spells (exact-number.ts): "9007199254740993"
 * is never turned into 9007199254740992; it stays a string and the reason says why. The walk follows the data,
 * so it terminates.
 */
import { isJsonObject, type Json, type JsonObject, type JsonSchema } from '../json.js';
import { inexactReason, readNumber } from './exact-number.js';
import { applicable, branches, itemSchemas, propertySchemas, typesOf } from './schema-walk.js';

function jsonType(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Where the walk is, for reasons: JSON pointer tokens, built into a string only when a reason is written. */
type Path = (string | number)[];

function pointer(path: Path): string {
  return path.map((t) => `/${String(t).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

interface Walk {
  readonly root: Json;
  readonly notes: string[] | undefined;
  readonly path: Path;
}

function coerceString(text: string, types: ReadonlySet<string>, walk: Walk): Json {
  if (types.size === 0 || types.has('string')) return text;
  const trimmed = text.trim();
  if (types.has('number') || types.has('integer')) {
    const read = readNumber(trimmed);
    if (read.ok && (types.has('number') || Number.isInteger(read.value))) return read.value;
    if (!read.ok && read.inexact) walk.notes?.push(inexactReason(pointer(walk.path), trimmed));
  }
  if (types.has('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  return text;
}

/** What one scope (the schemas at a location) says, computed once per scope: rows of a table share it. */
interface Scope {
  readonly schemas: JsonObject[];
  readonly types: Set<string>;
  readonly alternatives: JsonObject[][];
  readonly branchTypes: Set<string>[];
  readonly properties: Map<string, Scope>;
  /** The scope of every item when no schema here is a tuple; undefined until needed. */
  items?: Scope | null;
}

function scopeOf(schemas: JsonObject[], root: Json): Scope {
  const alternatives = branches(schemas, root);
  return { schemas, types: typesOf(schemas), alternatives, branchTypes: alternatives.map(typesOf), properties: new Map() };
}

function isTuple(schemas: readonly JsonObject[]): boolean {
  return schemas.some((s) => Array.isArray(s.prefixItems) || Array.isArray(s.items));
}

function itemScope(scope: Scope, index: number, root: Json): Scope {
  if (scope.items === undefined) scope.items = isTuple(scope.schemas) ? null : scopeOf(itemSchemas(scope.schemas, 0, root), root);
  return scope.items ?? scopeOf(itemSchemas(scope.schemas, index, root), root);
}

function propertyScope(scope: Scope, key: string, root: Json): Scope {
  let sub = scope.properties.get(key);
  if (sub === undefined) {
    sub = scopeOf(propertySchemas(scope.schemas, key, root), root);
    // Keys come from the data: bound the memo so a value with a million distinct keys cannot grow it.
    if (scope.properties.size < 1000) scope.properties.set(key, sub);
  }
  return sub;
}

function coerceWith(value: Json, at: Scope, walk: Walk): Json {
  let types = at.types;
  let scope = at;
  if (at.alternatives.length > 0) {
    // With anyOf/oneOf, coerce a string only when no branch takes strings; structures follow the first
    // branch whose type fits the value.
    if (typeof value === 'string' && types.size === 0) {
      if (at.branchTypes.some((t) => t.size === 0 || t.has('string'))) return value;
      types = new Set(at.branchTypes.flatMap((t) => [...t]));
    } else if (typeof value === 'object' && value !== null) {
      const kind = jsonType(value);
      const fit = at.branchTypes.findIndex((t) => t.has(kind));
      if (fit >= 0) scope = scopeOf([...at.schemas, ...at.alternatives[fit]!], walk.root);
    }
  }
  if (typeof value === 'string') return coerceString(value, types, walk);
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      walk.path.push(i);
      const out = coerceWith(item, itemScope(scope, i, walk.root), walk);
      walk.path.pop();
      return out;
    });
  }
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      const sub = propertyScope(scope, key, walk.root);
      walk.path.push(key);
      const next = sub.schemas.length > 0 ? coerceWith(item, sub, walk) : item;
      walk.path.pop();
      // Only `__proto__` needs defineProperty (assignment would set the prototype); it is rare, and
      // defineProperty for every key would put the copy into V8's slow dictionary mode.
      if (key === '__proto__') Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
      else out[key] = next;
    }
    return out;
  }
  return value;
}

/**
 * A copy of `value` with strings coerced to the number/integer/boolean types `schema` asks for. Strings that
 * spell a number a JSON number cannot hold exactly stay strings; for each, a reason goes onto `notes`.
 */
export function coerce(value: Json, schema: JsonSchema, notes?: string[]): Json {
  return coerceWith(value, scopeOf(applicable(schema, schema), schema), { root: schema, notes, path: [] });
}
