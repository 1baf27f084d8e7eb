/**
 * JSON Schema draft-04, -06, -07 and 2019-09 rewritten to 2020-12, for clients whose validator knows only
 * 2020-12 (client profiles, `schemaDialect: 2020-12`). The rewrite keeps what the schema accepts: the same
 * instances pass and fail before and after (a property test holds it to that). What changes:
 * - `definitions` → `$defs`, and local `$ref`s that walk through a `definitions` keyword follow it;
 * - array-form `items` → `prefixItems`, with `additionalItems` → `items` (without an array `items`,
 *   `additionalItems` never applied and is dropped);
 * - `dependencies` → `dependentRequired` (array values) and `dependentSchemas` (schema values);
 * - draft-04: `id` → `$id`, boolean `exclusiveMaximum`/`exclusiveMinimum` → the number form;
 * - 2019-09: `$recursiveAnchor: true` → `$dynamicAnchor`, `$recursiveRef` → `$dynamicRef` to it;
 * - `$schema` at the root names 2020-12.
 * Schemas come from upstreams nobody here controls: the walk is bounded in depth, and a schema nested deeper
 * than MAX_DEPTH is left as it was (undefined: not rewritten), never half-done.
 */
import { isJsonObject, type Json, type JsonObject, type JsonSchema } from '../json.js';

export const DIALECT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
/** Deepest schema position rewritten; deeper schemas are left whole. */
const MAX_DEPTH = 64;
/** The `$dynamicAnchor` name a 2019-09 `$recursiveAnchor: true` becomes. */
const RECURSIVE = 'recursive';

/** The draft a schema declares, or undefined for none or an unknown one. */
export type Draft = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

export function draftOf(schema: Json): Draft | undefined {
  if (!isJsonObject(schema) || typeof schema.$schema !== 'string') return undefined;
  const id = schema.$schema;
  if (/json-schema\.org\/draft-04\//.test(id)) return 'draft-04';
  if (/json-schema\.org\/draft-06\//.test(id)) return 'draft-06';
  if (/json-schema\.org\/draft-07\//.test(id)) return 'draft-07';
  if (/json-schema\.org\/draft\/2019-09\//.test(id)) return '2019-09';
  if (/json-schema\.org\/draft\/2020-12\//.test(id)) return '2020-12';
  return undefined;
}

/** Keywords whose value is one subschema. */
const ONE = ['additionalProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is a list of subschemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Forms only the older drafts have: a schema without `$schema` that holds none of them needs nothing. */
const OLD_FORMS = new Set(['definitions', 'dependencies', 'additionalItems', '$recursiveRef', '$recursiveAnchor']);

/** True when the schema needs the rewrite: an older draft declared, or (none declared) an older form used. */
export function needsRewrite(schema: Json): boolean {
  const draft = draftOf(schema);
  if (draft === '2020-12') return false;
  if (draft !== undefined) return true;
  if (isJsonObject(schema) && typeof schema.$schema === 'string') return false;
  return usesOldForms(schema, 0);
}

function usesOldForms(schema: Json, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(schema)) return schema.some((s) => usesOldForms(s, depth + 1));
  if (!isJsonObject(schema)) return false;
  for (const [key, value] of Object.entries(schema)) {
    if (OLD_FORMS.has(key) || (key === 'items' && Array.isArray(value))) return true;
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    if ((ONE.includes(key) || key === 'items' || LIST.includes(key)) && usesOldForms(value, depth + 1)) return true;
    if (MAP.includes(key) && isJsonObject(value) && Object.values(value).some((s) => usesOldForms(s, depth + 1))) return true;
  }
  return false;
}

class TooDeep extends Error {}

/** The 2020-12 form of `schema`, or undefined when it is nested too deeply to rewrite whole. */
export function to202012(schema: JsonSchema): JsonSchema | undefined {
  const draft = draftOf(schema) ?? 'draft-07';
  try {
    const out = rewrite(schema, schema, draft, 0);
    return isJsonObject(out) ? { ...out, $schema: DIALECT_2020_12 } : (out as JsonSchema);
  } catch (err) {
    if (err instanceof TooDeep) return undefined;
    throw err;
  }
}

/** An own, enumerable property (keys may be `__proto__`). */
function put(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function rewrite(schema: Json, root: Json, draft: Draft, depth: number): Json {
  if (!isJsonObject(schema)) return schema;
  if (depth > MAX_DEPTH) throw new TooDeep();
  const sub = (s: Json): Json => rewrite(s, root, draft, depth + 1);
  const out: JsonObject = {};
  const deps = isJsonObject(schema.dependencies) ? schema.dependencies : undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'definitions') {
      // A schema that has both keeps its own $defs entries; definitions' fill the rest.
      const defs = isJsonObject(out.$defs) ? out.$defs : {};
      for (const [name, s] of Object.entries(value as JsonObject)) if (!(name in defs)) put(defs, name, sub(s));
      put(out, '$defs', defs);
    } else if (key === '$defs' && isJsonObject(value)) {
      const defs = isJsonObject(out.$defs) ? out.$defs : {};
      for (const [name, s] of Object.entries(value)) put(defs, name, sub(s));
      put(out, '$defs', defs);
    } else if (key === 'items') {
      if (Array.isArray(value)) {
        put(out, 'prefixItems', value.map(sub));
        if (schema.additionalItems !== undefined) put(out, 'items', sub(schema.additionalItems));
      } else put(out, 'items', sub(value));
    } else if (key === 'additionalItems') {
      // Handled with an array `items`; alone it never applied.
    } else if (key === 'dependencies' && deps) {
      for (const [name, dep] of Object.entries(deps)) {
        const target = Array.isArray(dep) ? 'dependentRequired' : 'dependentSchemas';
        const into = isJsonObject(out[target]) ? (out[target] as JsonObject) : {};
        put(into, name, Array.isArray(dep) ? dep : sub(dep));
        put(out, target, into);
      }
    } else if (key === '$ref' && typeof value === 'string') {
      put(out, '$ref', refIn202012(value, root));
    } else if (key === '$recursiveRef' && typeof value === 'string') {
      put(out, '$dynamicRef', value === '#' ? `#${RECURSIVE}` : value);
    } else if (key === '$recursiveAnchor') {
      if (value === true) put(out, '$dynamicAnchor', RECURSIVE);
    } else if (key === 'id' && draft === 'draft-04' && typeof value === 'string') {
      put(out, '$id', value);
    } else if ((key === 'exclusiveMaximum' || key === 'exclusiveMinimum') && typeof value === 'boolean') {
      // draft-04: a flag on maximum/minimum; from draft-06 on, the bound itself.
      const bound = key === 'exclusiveMaximum' ? 'maximum' : 'minimum';
      if (value && typeof schema[bound] === 'number') put(out, key, schema[bound]);
    } else if ((key === 'maximum' || key === 'minimum') && schema[key === 'maximum' ? 'exclusiveMaximum' : 'exclusiveMinimum'] === true) {
      // Became the exclusive bound above.
    } else if (ONE.includes(key)) {
      put(out, key, sub(value));
    } else if (MAP.includes(key) && isJsonObject(value)) {
      const map: JsonObject = {};
      for (const [name, s] of Object.entries(value)) put(map, name, sub(s));
      put(out, key, map);
    } else if (LIST.includes(key) && Array.isArray(value)) {
      put(out, key, value.map(sub));
    } else if (key === 'dependentRequired' || key === 'dependentSchemas') {
      const into = isJsonObject(out[key]) ? (out[key] as JsonObject) : {};
      for (const [name, dep] of Object.entries(isJsonObject(value) ? value : {})) put(into, name, key === 'dependentSchemas' ? sub(dep) : dep);
      put(out, key, into);
    } else if (key !== '$schema' || depth === 0) {
      put(out, key, value);
    }
  }
  return out;
}

/**
 * A local `$ref` ("#/definitions/a/items/0") as it reads in the rewritten schema: each keyword it walks
 * through that was renamed is renamed (`definitions` → `$defs`, an array `items` → `prefixItems`,
 * `additionalItems` → `items`, `dependencies` → `dependentSchemas`). The walk follows the original schema so a
 * property named `definitions` is not taken for the keyword.
 */
function refIn202012(ref: string, root: Json): string {
  if (!ref.startsWith('#/')) return ref;
  let node: Json | undefined = root;
  let at: 'schema' | 'map' | 'list' | 'other' = 'schema';
  const out: string[] = [];
  for (const segment of ref.slice(2).split('/')) {
    const name = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    let renamed = segment;
    if (at === 'schema') {
      const parent: JsonObject | undefined = isJsonObject(node) ? node : undefined;
      if (name === 'definitions' || name === '$defs' || MAP.includes(name) || name === 'dependencies') {
        if (name === 'definitions') renamed = '$defs';
        if (name === 'dependencies') renamed = 'dependentSchemas';
        at = 'map';
      } else if (name === 'items' && Array.isArray(parent?.items)) {
        renamed = 'prefixItems';
        at = 'list';
      } else if (name === 'additionalItems') {
        renamed = 'items';
        at = 'schema';
      } else if (LIST.includes(name)) at = 'list';
      else if (name === 'items' || ONE.includes(name)) at = 'schema';
      else at = 'other';
    } else if (at === 'map' || at === 'list') at = 'schema';
    out.push(renamed);
    node = isJsonObject(node) ? node[name] : Array.isArray(node) ? node[Number(name)] : undefined;
  }
  return `#/${out.join('/')}`;
}
