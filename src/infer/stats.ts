/**
 * What the samples show at each position of the value: which JSON types occur and how often, whether every
 * number is an integer, the distinct strings (while there are few) and which string formats every string
 * matches, and, for objects, in how many of them each key is present. One pass over every sample; the
 * schema is written from these statistics (schema.ts). Formats are checked with the very ajv setup that
 * will validate the results (src/retrofit/validate.ts), so a format the stats grant never fails a sample.
 */
import { isJsonObject, type Json } from '../json.js';
import { check, compileSchema, type Validator } from '../retrofit/validate.js';
import { SchemaScope } from '../retrofit/schema-scope.js';

/** Formats inferred, in the order one is preferred when several match every string. */
export const FORMATS = ['date-time', 'email', 'uri'] as const;
export type StringFormat = (typeof FORMATS)[number];

/** Distinct strings remembered per position; one more and the position can no longer be an enum. */
export const ENUM_MAX_VALUES = 5;
/** Below this depth everything is accepted (`{}`): bounds the schema's size and the walk's recursion. */
export const MAX_DEPTH = 32;

/** Statistics of the values seen at one position. */
export interface Stats {
  /** Values seen here (array items count one by one). */
  count: number;
  nulls: number;
  booleans: number;
  /** Numbers that are integers… */
  integers: number;
  /** …and those that are not. */
  fractions: number;
  strings: number;
  arrays: number;
  objects: number;
  /** Values deeper than MAX_DEPTH: the position accepts anything. */
  deep: number;
  /** Distinct strings with their counts; undefined once more than ENUM_MAX_VALUES were seen. */
  values: Map<string, number> | undefined;
  /** Formats every string so far matches (all of them before the first string). */
  formats: Set<StringFormat>;
  /** Object keys in first-seen order: how many objects had the key, and the stats of its values. */
  properties: Map<string, { present: number; stats: Stats }>;
  /** The items of every array seen here, merged. */
  items: Stats | undefined;
}

export function emptyStats(): Stats {
  return { count: 0, nulls: 0, booleans: 0, integers: 0, fractions: 0, strings: 0, arrays: 0, objects: 0, deep: 0, values: new Map(), formats: new Set(FORMATS), properties: new Map(), items: undefined };
}

// The format validators live as long as the process: one scope for them all.
const FORMAT_SCOPE = new SchemaScope();

function formatValidator(format: StringFormat): Validator {
  const compiled = compileSchema({ type: 'string', format }, false, FORMAT_SCOPE);
  if (!compiled.ok) throw new Error(`format ${format} does not compile: ${compiled.message}`);
  return compiled.validate;
}

const VALIDATORS: ReadonlyMap<StringFormat, Validator> = new Map(FORMATS.map((f) => [f, formatValidator(f)]));
// ajv's `uri` accepts any `scheme:rest` ("status:ok", "note:see below"); only `scheme://…` is taken as one.
const URI_WITH_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\//i;

function matches(format: StringFormat, value: string): boolean {
  if (format === 'uri' && !URI_WITH_AUTHORITY.test(value)) return false;
  const validate = VALIDATORS.get(format);
  return validate !== undefined && check(validate, value).ok;
}

function addString(stats: Stats, value: string): void {
  stats.strings++;
  for (const format of stats.formats) if (!matches(format, value)) stats.formats.delete(format);
  if (stats.values) {
    stats.values.set(value, (stats.values.get(value) ?? 0) + 1);
    if (stats.values.size > ENUM_MAX_VALUES) stats.values = undefined;
  }
}

/** Adds one value (and everything inside it) to `stats`. */
export function addValue(stats: Stats, value: Json, depth = 0): void {
  stats.count++;
  if (depth >= MAX_DEPTH) {
    stats.deep++;
    return;
  }
  if (value === null) stats.nulls++;
  else if (typeof value === 'boolean') stats.booleans++;
  else if (typeof value === 'number') {
    if (Number.isInteger(value)) stats.integers++;
    else stats.fractions++;
  } else if (typeof value === 'string') addString(stats, value);
  else if (Array.isArray(value)) {
    stats.arrays++;
    for (const item of value) addValue((stats.items ??= emptyStats()), item, depth + 1);
  } else if (isJsonObject(value)) {
    stats.objects++;
    for (const [key, v] of Object.entries(value)) {
      // The engine's parsers drop this key from every value they read, so no schema needs to name it (and
      // src/retrofit/wrap.ts would lose it: it assigns property names, so `__proto__` becomes a prototype).
      if (key === '__proto__') continue;
      let entry = stats.properties.get(key);
      if (!entry) {
        entry = { present: 0, stats: emptyStats() };
        stats.properties.set(key, entry);
      }
      entry.present++;
      addValue(entry.stats, v, depth + 1);
    }
  }
}

/** The statistics of a list of samples. */
export function statsOf(samples: readonly Json[]): Stats {
  const stats = emptyStats();
  for (const sample of samples) addValue(stats, sample);
  return stats;
}
