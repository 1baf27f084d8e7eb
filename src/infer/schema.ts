/**
 * An outputSchema from the samples' statistics (stats.ts). The rules, kept few on purpose:
 * - `type`: every JSON type seen at the position (one name, or a list); `integer` only when every number
 *   there is an integer, else `number`.
 * - objects: `properties` for every key seen, `required` for the keys present in every object there;
 *   never `additionalProperties: false` (tomorrow's extra key must not turn a result into an error).
 * - arrays: one `items` schema, merged over the items of every sample's array; no `items` when all were empty.
 * - strings: `format` (date-time, email, uri) only when every string there matches it, checked with the
 *   gateway's own ajv, and at least FORMAT_MIN_DISTINCT different strings were seen; `uri` only for `scheme://…`.
 * - `enum` only for a small closed set seen many times: a string-only position with at least
 *   ENUM_MIN_SAMPLES strings, at most ENUM_MAX_VALUES distinct values, each seen at least twice, none of them
 *   the recordings' placeholder for a redacted value (src/record/scrub.ts), which stands for any string.
 * - positions deeper than MAX_DEPTH accept anything.
 * The schema validates every sample it was inferred from (a property test holds it to that).
 */
import type { JsonObject, JsonSchema, Json } from '../json.js';
import { CENSOR } from '../record/scrub.js';
import { ENUM_MAX_VALUES, FORMATS, statsOf, type Stats, type StringFormat } from './stats.js';

export { ENUM_MAX_VALUES, MAX_DEPTH } from './stats.js';

/** Strings seen at a position before it may become an enum. */
export const ENUM_MIN_SAMPLES = 20;
/** How often each value of an enum must have been seen. */
export const ENUM_MIN_REPEATS = 2;
/**
 * Different strings a position must have shown, all of one format, to be given it: one value that happens to
 * be an e-mail or a URL (a contact, a site) says little about the next, and the gateway turns the next answer
 * whose string is not of the format into an error.
 */
export const FORMAT_MIN_DISTINCT = 2;

function typesOf(stats: Stats): string[] {
  const types: string[] = [];
  if (stats.objects > 0) types.push('object');
  if (stats.arrays > 0) types.push('array');
  if (stats.strings > 0) types.push('string');
  if (stats.fractions > 0) types.push('number');
  else if (stats.integers > 0) types.push('integer');
  if (stats.booleans > 0) types.push('boolean');
  if (stats.nulls > 0) types.push('null');
  return types;
}

/** An own, enumerable property (keys come from untrusted samples: `__proto__` must stay a key). */
function put(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function enumOf(stats: Stats, types: readonly string[]): string[] | undefined {
  if (types.length !== 1 || types[0] !== 'string' || !stats.values || stats.strings < ENUM_MIN_SAMPLES) return undefined;
  const values = [...stats.values];
  if (values.length > ENUM_MAX_VALUES || values.some(([, n]) => n < ENUM_MIN_REPEATS)) return undefined;
  // A recording's placeholder stands for any string: a position that held one is no closed set.
  if (values.some(([v]) => v === CENSOR)) return undefined;
  return values.map(([v]) => v);
}

/** The format every string of a position matches (the first in FORMATS' order), whether granted or not. */
export function matchedFormat(stats: Stats): StringFormat | undefined {
  return stats.strings > 0 ? FORMATS.find((f) => stats.formats.has(f)) : undefined;
}

/** The format granted to a position: matched by every string, of at least FORMAT_MIN_DISTINCT different ones. */
export function formatOf(stats: Stats): StringFormat | undefined {
  const format = matchedFormat(stats);
  // `values` is undefined once more distinct strings than ENUM_MAX_VALUES were seen.
  return format !== undefined && (stats.values === undefined || stats.values.size >= FORMAT_MIN_DISTINCT) ? format : undefined;
}

/** The schema of one position. */
export function schemaOf(stats: Stats): JsonSchema {
  if (stats.deep > 0) return {};
  const types = typesOf(stats);
  if (types.length === 0) return {};
  const schema: JsonObject = { type: types.length === 1 ? types[0]! : types };
  if (stats.objects > 0 && stats.properties.size > 0) {
    const properties: JsonObject = {};
    const required: string[] = [];
    for (const [key, { present, stats: child }] of stats.properties) {
      put(properties, key, schemaOf(child));
      if (present === stats.objects) required.push(key);
    }
    schema.properties = properties;
    if (required.length > 0) schema.required = required;
  }
  if (stats.items && stats.items.count > 0) schema.items = schemaOf(stats.items);
  if (stats.strings > 0) {
    const format = formatOf(stats);
    if (format !== undefined) schema.format = format;
    const values = enumOf(stats, types);
    if (values) schema.enum = values;
  }
  return schema;
}

/** The outputSchema inferred from `samples` (at least one). */
export function inferSchema(samples: readonly Json[]): JsonSchema {
  return schemaOf(statsOf(samples));
}
