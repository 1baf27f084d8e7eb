/**
 * `coerce: true`: strings become numbers, integers or booleans where the schema asks for those and not for a
 * string. Nothing else is coerced (ajv's coerceTypes would also turn numbers into strings and nulls into "").
 * A string becomes a number only when the number is exactly what it spells (exact-number.ts): "9007199254740993"
 * is never turned into 9007199254740992; it stays a string and the reason says why. The walk follows the data,
 * so it terminates. Under `anyOf`/`oneOf`, a structure is coerced by each branch its type fits, in order, and
 * the first whose result that branch validates is taken (./branch-checks.ts). Trying them costs at most
 * TRIAL_BUDGET steps plus TRIALS_PER_VALUE per value held (nested unions would otherwise multiply); past that,
 * or when no branch validates, the first branch whose type fits is followed, as without checks.
 */
import { type Json, type JsonObject, type JsonSchema } from '../json.js';
import { inexactReason, readNumber } from '../exact-number.js';
import { applicable, branches, itemSchemas, propertySchemas, typesOf } from './schema-walk.js';
import type { BranchCheck } from './branch-checks.js';

/** Steps (values visited) that trying branches may take in any coercion… */
export const TRIAL_BUDGET = 10_000;
/** …and per value the coerced value holds, so a large table of unions is tried row by row. */
export const TRIALS_PER_VALUE = 4;

/** How many values and containers `value` holds (iterative: the value may nest deeply). */
function sizeOf(value: Json): number {
  let n = 0;
  const stack: Json[] = [value];
  while (stack.length > 0) {
    const v = stack.pop()!;
    n++;
    if (typeof v === 'object' && v !== null) for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
  }
  return n;
}

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
  readonly check: BranchCheck | undefined;
  /** Steps left for trying branches (TRIAL_BUDGET, TRIALS_PER_VALUE). */
  budget: number;
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
  /** Each alternative's schema as written in its list (what a BranchCheck knows it by); undefined for `false`. */
  readonly written: (JsonObject | undefined)[];
  readonly branchTypes: Set<string>[];
  readonly properties: Map<string, Scope>;
  /** The scope under each alternative, made on first need: rows of a table share it. */
  readonly under: (Scope | undefined)[];
  /** The scope of every item when no schema here is a tuple; undefined until needed. */
  items?: Scope | null;
}

function scopeOf(schemas: JsonObject[], root: Json): Scope {
  const alternatives = branches(schemas, root);
  return { schemas, types: typesOf(schemas), alternatives, written: alternatives.map((a) => a[0]), branchTypes: alternatives.map(typesOf), properties: new Map(), under: [] };
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

/** The scope of a value that follows alternative `index` too. */
function withBranch(at: Scope, index: number, root: Json): Scope {
  return (at.under[index] ??= scopeOf([...at.schemas, ...at.alternatives[index]!], root));
}

/**
 * A structure under anyOf/oneOf: coerced by the first branch (in order) whose type admits it and which
 * validates what that branch's coercion made; failing that, by the first branch that names its type (or none).
 */
function coerceUnion(value: JsonObject | Json[], at: Scope, walk: Walk): Json {
  const kind = jsonType(value);
  const fallback = at.branchTypes.findIndex((t) => t.has(kind));
  // The fallback branch's trial, kept to be served (with its notes) when no branch validates.
  let kept: { readonly out: Json; readonly notes: string[] } | undefined;
  if (walk.check !== undefined) {
    for (let i = 0; i < at.alternatives.length && walk.budget > 0; i++) {
      const types = at.branchTypes[i]!;
      const written = at.written[i];
      if (written === undefined || (types.size > 0 && !types.has(kind))) continue;
      const before = walk.notes?.length ?? 0;
      const out = coerceStructure(value, withBranch(at, i, walk.root), walk, true);
      if (walk.check(written, out) === true) return out;
      // A rejected trial's notes are not the value's.
      const notes = walk.notes?.splice(before) ?? [];
      if (i === fallback) kept = { out, notes };
    }
  }
  if (kept !== undefined) {
    walk.notes?.push(...kept.notes);
    return kept.out;
  }
  return coerceStructure(value, fallback >= 0 ? withBranch(at, fallback, walk.root) : at, walk, false);
}

function coerceWith(value: Json, at: Scope, walk: Walk): Json {
  if (typeof value === 'string') {
    let types = at.types;
    // With anyOf/oneOf, coerce a string only when no branch takes strings.
    if (at.alternatives.length > 0 && types.size === 0) {
      if (at.branchTypes.some((t) => t.size === 0 || t.has('string'))) return value;
      types = new Set(at.branchTypes.flatMap((t) => [...t]));
    }
    return coerceString(value, types, walk);
  }
  if (typeof value !== 'object' || value === null) return value;
  return at.alternatives.length > 0 ? coerceUnion(value, at, walk) : coerceStructure(value, at, walk, false);
}

function coerceStructure(value: JsonObject | Json[], scope: Scope, walk: Walk, trial: boolean): Json {
  // A trial's steps are paid from the budget: nested unions try each other's branches within it.
  if (trial) walk.budget -= 1;
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      walk.path.push(i);
      if (trial) walk.budget -= 1;
      const out = coerceWith(item, itemScope(scope, i, walk.root), walk);
      walk.path.pop();
      return out;
    });
  }
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const sub = propertyScope(scope, key, walk.root);
    walk.path.push(key);
    if (trial) walk.budget -= 1;
    const next = sub.schemas.length > 0 ? coerceWith(item, sub, walk) : item;
    walk.path.pop();
    // Only `__proto__` needs defineProperty (assignment would set the prototype); it is rare, and
    // defineProperty for every key would put the copy into V8's slow dictionary mode.
    if (key === '__proto__') Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
    else out[key] = next;
  }
  return out;
}

/**
 * A copy of `value` with strings coerced to the number/integer/boolean types `schema` asks for. Strings that
 * spell a number a JSON number cannot hold exactly stay strings; for each, a reason goes onto `notes`.
 * `check` (the schema's compiled branch checks) lets anyOf/oneOf take the branch the value fits.
 */
export function coerce(value: Json, schema: JsonSchema, notes?: string[], check?: BranchCheck): Json {
  const budget = check === undefined ? 0 : TRIAL_BUDGET + TRIALS_PER_VALUE * sizeOf(value);
  return coerceWith(value, scopeOf(applicable(schema, schema), schema), { root: schema, notes, path: [], check, budget });
}
