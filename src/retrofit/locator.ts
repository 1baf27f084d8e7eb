/**
 * Where a node of a reading sits in the outputSchema. A reading (the parsed text) is not always what the
 * schema describes: `select` picks a part of it, and `wrap` puts it under a key. A Locator starts at the
 * reading's root and follows keys and indexes; above the selected part, and off its path, nothing is wanted
 * (`any`); at and under it, the schema's subschemas apply (the wrap key's, when `wrap` is set).
 */
import type { Json, JsonObject, JsonSchema } from '../json.js';
import type { ExtractConfig } from './settings.js';
import { rootTypes, typesOfAll } from './root-types.js';
import { applicable, itemSchemas, propertySchemas, wantsAt, type Wants } from './schema-walk.js';

/** A position in the schema, seen from the reading. */
export interface Locator {
  /** What the schema wants here. */
  wants(): Wants;
  /** The position of property `key` (a string) or item `index` (a number). */
  at(step: string | number): Locator;
}

const FREE: Locator = { wants: () => ({ any: true, types: new Set() }), at: () => FREE };

function inSchema(schemas: JsonObject[], root: Json): Locator {
  return {
    wants: () => wantsAt(schemas, root),
    at: (step) => inSchema(typeof step === 'number' ? itemSchemas(schemas, step, root) : propertySchemas(schemas, step, root), root),
  };
}

function tokens(pointer: string): string[] {
  return pointer.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function above(rest: readonly string[], target: Locator): Locator {
  if (rest.length === 0) return target;
  return { wants: FREE.wants, at: (step) => (String(step) === rest[0] ? above(rest.slice(1), target) : FREE) };
}

/** The Locator of a reading's root for this schema and extract settings. */
export function readingLocator(schema: JsonSchema, extract: ExtractConfig): Locator {
  let scope = applicable(schema, schema);
  if (extract.wrap !== undefined) scope = propertySchemas(scope, extract.wrap, schema);
  const target = inSchema(scope, schema);
  return extract.select === undefined || extract.select === '' ? target : above(tokens(extract.select), target);
}

/**
 * True when `auto` should offer array readings of prose (tables, lists): the schema names `array` where the
 * reading lands, or `select` picks a part of the reading (which the validation then judges). An
 * unconstrained schema does not ask for one: it keeps taking the text as it is.
 */
export function readingWantsArray(schema: JsonSchema, extract: ExtractConfig): boolean {
  if (extract.select !== undefined && extract.select !== '') return true;
  const wants = readingLocator(schema, extract).wants();
  return !wants.any && wants.types.has('array');
}

/**
 * The JSON types the reading may be where it lands, for the readings offered by type (a scalar, a one-item
 * list, an empty list): the schema root's, or with `wrap`, those of the wrapped key's subschemas (the reading
 * becomes that key's value). A wrap key the schema does not describe takes any value.
 */
export function readingRootTypes(schema: JsonSchema, extract: ExtractConfig): ReadonlySet<string> {
  if (extract.wrap === undefined) return rootTypes(schema);
  const under = propertySchemas(applicable(schema, schema), extract.wrap, schema);
  return under.length === 0 ? rootTypes(true) : typesOfAll(under, schema);
}
