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

function coerceWith(value: Json, schemas: JsonObject[], walk: Walk): Json {
  let types = typesOf(schemas);
  let scope = schemas;
  const alternatives = branches(schemas, walk.root);
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
  if (typeof value === 'string') return coerceString(value, types, walk);
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      walk.path.push(i);
      const out = coerceWith(item, itemSchemas(scope, i, walk.root), walk);
      walk.path.pop();
      return out;
    });
  }
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      const sub = propertySchemas(scope, key, walk.root);
      walk.path.push(key);
      const next = sub.length > 0 ? coerceWith(item, sub, walk) : item;
      walk.path.pop();
      Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
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
  return coerceWith(value, applicable(schema, schema), { root: schema, notes, path: [] });
}
