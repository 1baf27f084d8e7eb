/**
 * Validators of an output schema's `anyOf`/`oneOf` branches, compiled at load, so that coercion (coerce.ts)
 * can take the branch a value fits instead of the first one whose type fits: a table row `| code | 34 |`
 * under `oneOf: [{kind: const num, v: integer}, {kind: const code, v: string}]` must keep "34" a string.
 * Each branch compiles in its root document's context (ajv resolves `#/…` refs, `$anchor`s and nested `$id`s
 * from there), by JSON pointer. Bounded: at most MAX_BRANCHES per schema; the others are not checked, and
 * coercion then falls back to the first branch whose type fits.
 */
import type { Ajv } from 'ajv';
import { isJsonObject, type Json, type JsonObject, type JsonSchema } from '../json.js';
import { ownAjv, type Dialect, type SchemaScope } from './schema-scope.js';
import { eachSubschema } from './subschemas.js';
import type { Validator } from './validate.js';

/**
 * Whether `value` is valid against `branch` (an element of an `anyOf`/`oneOf` list of the schema): true or
 * false; undefined when the branch has no validator (then the caller decides as it would without one).
 */
export type BranchCheck = (branch: JsonObject, value: Json) => boolean | undefined;

/** Most branch validators compiled for one schema. */
export const MAX_BRANCHES = 256;

/** A key no configured `$id` uses, unique per compiled schema (several share a scope's instance). */
let serial = 0;

function fragment(path: readonly (string | number)[]): string {
  return path.map((t) => `/${encodeURIComponent(String(t).replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
}

/**
 * The branch check of `schema` (already compiled and known valid in `dialect`), or undefined when it has no
 * `anyOf`/`oneOf`. Its validators remove nothing. `ownInstance`: the schema declares `$id`s, so it compiles
 * in an ajv instance of its own (as validate.ts does), else in `scope`'s.
 */
export function compileBranchChecks(schema: JsonSchema, dialect: Dialect, scope: SchemaScope, ownInstance: boolean): BranchCheck | undefined {
  if (!isJsonObject(schema)) return undefined;
  const places: { branch: JsonObject; path: (string | number)[] }[] = [];
  eachSubschema(schema, (node, path) => {
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      list.forEach((branch, i) => {
        if (isJsonObject(branch) && places.length < MAX_BRANCHES) places.push({ branch, path: [...path, key, i] });
      });
    }
  });
  if (places.length === 0) return undefined;
  let ajv: Ajv;
  const key = `https://mcp-retrofit.invalid/branches/${++serial}.json`;
  const validators = new Map<JsonObject, Validator>();
  try {
    ajv = ownInstance ? ownAjv(dialect, false, false) : scope.ajv(dialect, false);
    ajv.addSchema(schema, key);
  } catch {
    return undefined;
  }
  for (const { branch, path } of places) {
    try {
      const validate = ajv.getSchema(`${key}#${fragment(path)}`);
      if (validate) validators.set(branch, validate);
    } catch {
      // A branch that cannot compile alone is simply not checked.
    }
  }
  if (validators.size === 0) return undefined;
  return (branch, value) => {
    const validate = validators.get(branch);
    if (!validate) return undefined;
    try {
      return validate(value) === true;
    } catch {
      return false;
    }
  };
}
