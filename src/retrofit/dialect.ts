/**
 * JSON Schema draft-04, -06, -07 and 2019-09 rewritten to 2020-12, for clients whose validator knows only
 * 2020-12 (client profiles, `schemaDialect: 2020-12`). The rewrite keeps what the schema accepts: the same
 * instances pass and fail before and after (a property test holds it to that). What changes:
 * - `definitions` → `$defs` (a name `$defs` has too takes a fresh key: ./dialect-keywords.ts defsKeys), and
 *   every `$ref` that walks through a renamed keyword follows it, resolved as a validator resolves it: local,
 *   by an `$id`, or into a schema file the config loader embedded (./dialect-refs.ts);
 * - array-form `items` → `prefixItems`, with `additionalItems` → `items` (without an array `items`,
 *   `additionalItems` never applied and is dropped);
 * - `dependencies` → `dependentRequired` (array values) and `dependentSchemas` (schema values);
 * - draft-04: `id` → `$id`, boolean `exclusiveMaximum`/`exclusiveMinimum` → the number form;
 * - `$id: "#name"` (older drafts' anchors) → `$anchor: name`;
 * - keywords the declared draft ignores but 2020-12 applies (`prefixItems` in draft-07…) are dropped;
 * - 2019-09: `$recursiveAnchor: true` → `$dynamicAnchor`, `$recursiveRef` → `$dynamicRef` to it;
 * - `$schema` at the root names 2020-12.
 * Schemas come from upstreams nobody here controls: the walk is bounded in depth. A schema nested deeper than
 * MAX_DEPTH, or one with no 2020-12 form that means the same (Unfaithful: a ref out of the schema or into a
 * dropped keyword, an id 2020-12 cannot write…), is not rewritten (undefined), never half-done.
 */
import { isJsonObject, type Json, type JsonObject, type JsonSchema } from '../json.js';
import { defsKeys, draftOf, idKeyword, ignoredBy, isAnchorName, LIST, MAP, ONE, splitId, Unfaithful, type Draft } from './dialect-keywords.js';
import { baseOf, refIn202012, resourcesOf, type Resources } from './dialect-refs.js';

export { draftOf, type Draft } from './dialect-keywords.js';

export const DIALECT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
/** Deepest schema position rewritten; deeper schemas are left whole. */
const MAX_DEPTH = 64;
/** The `$dynamicAnchor` name a 2019-09 `$recursiveAnchor: true` becomes. */
const RECURSIVE = 'recursive';

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

/** The 2020-12 form of a schema, or why there is none that accepts exactly the same instances. */
export type Rewritten = { readonly ok: true; readonly schema: JsonSchema } | { readonly ok: false; readonly reason: string };

/** The 2020-12 form of `schema` (see the module comment), or the reason it has none. */
export function rewriteTo202012(schema: JsonSchema): Rewritten {
  if (!isJsonObject(schema)) return { ok: true, schema };
  // Undeclared: read as draft-07 for its old forms, its 2020-12 keywords kept (ignoredBy).
  const draft = draftOf(schema);
  try {
    const resources = resourcesOf(schema, draft, MAX_DEPTH);
    const out = rewrite(schema, { draft, resources, ignored: ignoredBy(draft) }, resources.rootBase, 0) as JsonObject;
    return { ok: true, schema: { ...out, $schema: DIALECT_2020_12 } };
  } catch (err) {
    if (err instanceof TooDeep) return { ok: false, reason: `nested deeper than ${MAX_DEPTH} levels` };
    if (err instanceof Unfaithful) return { ok: false, reason: err.message };
    throw err;
  }
}

/** The 2020-12 form of `schema`, or undefined when it has none that means the same (too deep, or see Unfaithful). */
export function to202012(schema: JsonSchema): JsonSchema | undefined {
  const out = rewriteTo202012(schema);
  return out.ok ? out.schema : undefined;
}

/**
 * Why a `schemaDialect: 2020-12` profile serves `schema` as written although it is of an older draft (it has
 * no faithful rewrite), or undefined when the profile serves it in 2020-12 (rewritten, or needing nothing).
 * The judgement of ./profile.ts (needsRewrite, then the rewrite), put in words for `check`'s warning.
 */
export function servedAsWritten(schema: JsonSchema): string | undefined {
  if (!needsRewrite(schema)) return undefined;
  const out = rewriteTo202012(schema);
  return out.ok ? undefined : out.reason;
}

/** An own, enumerable property (keys may be `__proto__`). */
function put(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

interface Context {
  readonly draft: Draft | undefined;
  readonly resources: Resources;
  readonly ignored: ReadonlySet<string>;
}

/** `entries` merged into `out[target]`: `dependentRequired` lists of one name united, two schemas for one name refused. */
function mergeDependent(out: JsonObject, target: 'dependentRequired' | 'dependentSchemas', name: string, dep: Json): void {
  const into = isJsonObject(out[target]) ? out[target] : {};
  const had = Object.hasOwn(into, name) ? into[name] : undefined;
  if (had === undefined) put(into, name, dep);
  else if (Array.isArray(had) && Array.isArray(dep)) put(into, name, [...new Set([...had, ...dep])]);
  else throw new Unfaithful(`two ${target} schemas for ${JSON.stringify(name)}`);
  put(out, target, into);
}

function rewrite(schema: Json, ctx: Context, parentBase: string, depth: number): Json {
  if (!isJsonObject(schema)) return schema;
  if (depth > MAX_DEPTH) throw new TooDeep();
  const { draft, ignored } = ctx;
  const base = baseOf(schema, parentBase, draft);
  const sub = (s: Json): Json => rewrite(s, ctx, base, depth + 1);
  const out: JsonObject = {};
  const anchor = (name: Json | undefined): void => {
    if (!isAnchorName(name)) throw new Unfaithful(`anchor ${JSON.stringify(name)} has no 2020-12 form`);
    if (out.$anchor !== undefined && out.$anchor !== name) throw new Unfaithful(`two anchors in one schema (${String(out.$anchor)}, ${String(name)})`);
    put(out, '$anchor', name as string);
  };
  for (const [key, value] of Object.entries(schema)) {
    if (ignored.has(key)) {
      // Meant nothing to the source draft; 2020-12 would apply it.
    } else if (key === 'definitions' || key === '$defs') {
      if (!isJsonObject(value)) throw new Unfaithful(`${key} is not an object`);
      // A schema may hold both: a `definitions` name `$defs` has too takes a fresh key (defsKeys), which
      // the refs to it follow.
      const keys = key === 'definitions' ? defsKeys(schema) : undefined;
      const defs = isJsonObject(out.$defs) ? out.$defs : {};
      for (const [name, s] of Object.entries(value)) put(defs, keys?.get(name) ?? name, sub(s));
      put(out, '$defs', defs);
    } else if (key === 'items') {
      if (Array.isArray(value)) {
        if (schema.prefixItems !== undefined && !ignored.has('prefixItems')) throw new Unfaithful('an array items beside prefixItems');
        put(out, 'prefixItems', value.map(sub));
        if (schema.additionalItems !== undefined) put(out, 'items', sub(schema.additionalItems));
      } else put(out, 'items', sub(value));
    } else if (key === 'additionalItems') {
      // Handled with an array `items`; alone it never applied.
    } else if (key === 'dependencies' && isJsonObject(value)) {
      for (const [name, dep] of Object.entries(value)) mergeDependent(out, Array.isArray(dep) ? 'dependentRequired' : 'dependentSchemas', name, Array.isArray(dep) ? dep : sub(dep));
    } else if ((key === 'dependentRequired' || key === 'dependentSchemas') && isJsonObject(value)) {
      for (const [name, dep] of Object.entries(value)) mergeDependent(out, key, name, key === 'dependentSchemas' ? sub(dep) : dep);
    } else if (key === '$ref' && typeof value === 'string') {
      put(out, '$ref', refIn202012(value, base, ctx.resources));
    } else if (key === '$recursiveRef' && typeof value === 'string') {
      put(out, '$dynamicRef', value === '#' ? `#${RECURSIVE}` : value);
    } else if (key === '$recursiveAnchor') {
      if (value === true) put(out, '$dynamicAnchor', RECURSIVE);
    } else if (key === idKeyword(draft)) {
      // draft-07's `$id: "#name"` is 2020-12's `$anchor`; 2020-12 allows no other fragment in an id.
      const id = splitId(value);
      if (id.base !== undefined) put(out, '$id', value === `${id.base}#` ? value : id.base);
      if (id.anchor !== undefined) anchor(id.anchor);
    } else if (key === '$anchor') {
      anchor(value);
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
    } else if (key !== '$schema' || depth === 0) {
      put(out, key, value);
    }
  }
  return out;
}
