/**
 * What the draft-to-2020-12 rewrite (./dialect.ts) knows of keywords: which hold subschemas, which a source
 * draft ignores that 2020-12 applies, where a schema's own id and anchor are, and which `$defs` key each
 * `definitions` entry takes. "Ignores" and "applies" are ajv's: the gateway, and the clients, validate with it.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';

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
export const ONE = ['additionalProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
/** Keywords whose value maps names to subschemas. */
export const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is a list of subschemas. */
export const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/** 2020-12 keywords that ajv's draft-04/06/07 validators ignore: kept, they would start to apply. */
const NEWER_THAN_07 = ['prefixItems', 'dependentRequired', 'dependentSchemas', 'unevaluatedItems', 'unevaluatedProperties', 'minContains', 'maxContains', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'];
const IGNORED: Record<Draft, ReadonlySet<string>> = {
  // draft-04 names its ids `id`: `$id` is no keyword there.
  'draft-04': new Set([...NEWER_THAN_07, '$id']),
  'draft-06': new Set(NEWER_THAN_07),
  'draft-07': new Set(NEWER_THAN_07),
  '2019-09': new Set(['prefixItems', '$dynamicRef', '$dynamicAnchor']),
  '2020-12': new Set(),
};

const NONE: ReadonlySet<string> = new Set();

/**
 * Keywords `draft` ignores that 2020-12 applies: the rewrite drops them, so they go on meaning nothing. A
 * schema that declares no draft (the gateway reads it as 2020-12) keeps them.
 */
export function ignoredBy(draft: Draft | undefined): ReadonlySet<string> {
  return draft === undefined ? NONE : IGNORED[draft];
}

/** The schema cannot be rewritten so that it accepts exactly the same instances (the reason says why). */
export class Unfaithful extends Error {}

/** The keyword that holds a schema's id in `draft`. */
export function idKeyword(draft: Draft | undefined): '$id' | 'id' {
  return draft === 'draft-04' ? 'id' : '$id';
}

/** 2020-12's `$anchor` form: draft-07 allowed `:` too, 2020-12 does not. */
const ANCHOR = /^[A-Za-z_][-A-Za-z0-9._]*$/;

/**
 * A schema's id split the 2020-12 way: `base` (a resource id, for `$id`) and `anchor` (for `$anchor`; older
 * drafts wrote it as `$id: "#name"`). Throws Unfaithful for what 2020-12 has no form for.
 */
export function splitId(id: Json | undefined): { readonly base?: string; readonly anchor?: string } {
  if (typeof id !== 'string') return {};
  const hash = id.indexOf('#');
  if (hash < 0) return { base: id };
  const fragment = id.slice(hash + 1);
  const base = id.slice(0, hash);
  if (fragment === '') return base === '' ? {} : { base };
  if (base !== '' || !ANCHOR.test(fragment)) throw new Unfaithful(`$id ${JSON.stringify(id)} has no 2020-12 form`);
  return { anchor: fragment };
}

/** True when `name` is a valid 2020-12 anchor name. */
export function isAnchorName(name: Json | undefined): boolean {
  return typeof name === 'string' && ANCHOR.test(name);
}

const defsKeyMemo = new WeakMap<JsonObject, ReadonlyMap<string, string>>();

/**
 * The `$defs` key each of `schema.definitions`' entries takes: its own name, unless `$defs` already has that
 * name (a schema may hold both), then a fresh one (`name-definitions`, `name-definitions-2`, …). A function of
 * the schema alone, so the rewrite and every `$ref` into it agree.
 */
export function defsKeys(schema: JsonObject): ReadonlyMap<string, string> {
  const memo = defsKeyMemo.get(schema);
  if (memo) return memo;
  const keys = new Map<string, string>();
  const definitions = isJsonObject(schema.definitions) ? Object.keys(schema.definitions) : [];
  const own = new Set(isJsonObject(schema.$defs) ? Object.keys(schema.$defs) : []);
  const taken = new Set([...own, ...definitions]);
  for (const name of definitions) {
    if (!own.has(name)) {
      keys.set(name, name);
      continue;
    }
    let fresh = `${name}-definitions`;
    for (let n = 2; taken.has(fresh); n++) fresh = `${name}-definitions-${n}`;
    taken.add(fresh);
    keys.set(name, fresh);
  }
  defsKeyMemo.set(schema, keys);
  return keys;
}
