/**
 * ajv, configured once: JSON Schema 2020-12 by default, draft-07 (and draft-06) and 2019-09 when `$schema`
 * says so, formats on, strict mode off and silent, no network `$ref` loading (only `compile`, never
 * `compileAsync`, so an external ref is a compile error). Every schema is compiled once, at config load or on
 * first sight of an upstream-declared schema, in ajv instances that live as long as its validators
 * (./schema-scope.ts).
 *
 * A validator stops at a value's first problem: with ajv's `allErrors` an upstream's 5,000,000-item array that
 * fails everywhere builds millions of error objects (seconds of CPU and gigabytes) to report ten. A value that
 * fails is then checked again for all its problems only when it is small (FULL_REASONS_NODES), by a twin
 * validator compiled on the first such failure; a larger one reports its first problem.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../json.js';
import { metaAjv, ownAjv, SchemaScope, transientScope, type Dialect } from './schema-scope.js';
import { eachSubschema } from './subschemas.js';
import type { RemoveAdditional } from './settings.js';

/** A compiled validator. `errors` is set after a failed call (ajv's convention). */
export type Validator = ValidateFunction;

/** The outcome of compiling one schema. */
export type CompileResult =
  | { readonly ok: true; readonly validate: Validator; readonly dialect: Dialect }
  | {
      readonly ok: false;
      /** The first problem (what a single-line report shows). */
      readonly message: string;
      readonly path?: readonly string[];
      /** Every problem, one per place in the schema (`check` reports them all). */
      readonly problems: readonly { readonly message: string; readonly path: readonly string[] }[];
    };

const DIALECTS: ReadonlyMap<string, Dialect> = new Map([
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
  ['http://json-schema.org/draft-07/schema', 'draft-07'],
  ['http://json-schema.org/draft-06/schema', 'draft-07'],
]);

/** The most values and containers a failing value may hold to have all its problems listed (see above). */
export const FULL_REASONS_NODES = 2000;

/** The dialect a schema declares (2020-12 when it declares none), or undefined when we do not support it. */
export function dialectOf(schema: JsonSchema): Dialect | undefined {
  if (typeof schema === 'boolean') return '2020-12';
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') return undefined;
  return DIALECTS.get(declared.replace(/#$/, ''));
}

/** True when the schema declares an `$id` somewhere (it then compiles in an ajv instance of its own). */
export function mentionsId(schema: JsonSchema): boolean {
  return typeof schema === 'object' && JSON.stringify(schema).includes('"$id"');
}

/**
 * Compile a schema; never throws. It compiles in `scope` (./schema-scope.ts), which the validator then keeps
 * alive: validators that live and die together share one (by default a validator has a scope of its own);
 * 'verdict' for a schema compiled only to know whether it compiles (then forgotten). Schemas that declare
 * `$id`s get an ajv instance of their own, because ajv refuses a second schema with the same id and two tools
 * may legitimately share one schema file.
 * With `removeAdditional` (true or "all") the validator deletes the properties that mode drops from the
 * value it checks, in place (ajv's semantics): callers hand it a value nobody else holds.
 */
export function compileSchema(schema: JsonSchema, removeAdditional: RemoveAdditional = false, scope: SchemaScope | 'verdict' = new SchemaScope()): CompileResult {
  const dialect = dialectOf(schema);
  if (dialect === undefined) {
    const declared = typeof schema === 'object' ? JSON.stringify(schema.$schema) : '';
    const message = `unsupported JSON Schema dialect ${declared} (supported: 2020-12, 2019-09, draft-07, draft-06)`;
    return { ok: false, message, path: ['$schema'], problems: [{ message, path: ['$schema'] }] };
  }
  // A schema with `$id`s gets an instance of its own (see above).
  const own = mentionsId(schema);
  try {
    // Every mistake of the schema, not the first only (`check` reports them all).
    const meta = metaAjv(dialect);
    if (!meta.validateSchema(schema)) {
      const problems = schemaProblems(meta.errors ?? []);
      const first = problems[0] ?? { message: 'schema is invalid', path: [] };
      return { ok: false, message: first.message, path: first.path, problems };
    }
    const ajv = own ? ownAjv(dialect, removeAdditional, false) : (scope === 'verdict' ? transientScope() : scope).ajv(dialect, removeAdditional);
    const validate = ajv.compile(schema);
    if (scope === 'verdict') {
      // ajv keeps every schema it compiled: one compiled only for its verdict (an upstream's) must not stay.
      if (typeof schema === 'object') ajv.removeSchema(schema);
    } else {
      // Its twin that lists every problem, compiled when a small value first fails (never for a verdict only).
      twins.set(validate, { schema, removeAdditional, dialect });
    }
    return { ok: true, validate, dialect };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // ajv builds a pattern's RegExp as it compiles and throws V8's error, which says not where: find it.
    const patterns = err instanceof SyntaxError ? badPatterns(schema) : [];
    if (patterns.length > 0) return { ok: false, message: patterns[0]!.message, path: patterns[0]!.path, problems: patterns };
    return { ok: false, message, problems: [{ message, path: [] }] };
  }
}

/** The `pattern`s and `patternProperties` names of a schema that are no regular expression (as ajv reads them: `u`). */
function badPatterns(schema: JsonSchema): { message: string; path: string[] }[] {
  const out: { message: string; path: string[] }[] = [];
  const check = (source: string, path: string[]): void => {
    try {
      new RegExp(source, 'u');
    } catch (err) {
      out.push({ message: err instanceof Error ? err.message : String(err), path });
    }
  };
  eachSubschema(schema, (node, at) => {
    const here = at.map(String);
    if (typeof node.pattern === 'string') check(node.pattern, [...here, 'pattern']);
    const named = node.patternProperties;
    if (named !== null && typeof named === 'object' && !Array.isArray(named)) for (const key of Object.keys(named)) check(key, [...here, 'patternProperties', key]);
  });
  return out;
}

/** What compiles a validator's twin that lists every problem (see the module comment), and then the twin. */
interface Twin {
  readonly schema: JsonSchema;
  readonly removeAdditional: RemoveAdditional;
  readonly dialect: Dialect;
  /** Compiled on first need; null when it does not compile. */
  validate?: Validator | null;
}

const twins = new WeakMap<Validator, Twin>();

/** The twin of `validate` that lists every problem; undefined when it has none (or it does not compile). */
function twinOf(twin: Twin): Validator | undefined {
  if (twin.validate !== undefined) return twin.validate ?? undefined;
  const { schema, removeAdditional, dialect } = twin;
  try {
    // An instance of its own, which only the twin keeps: one of a scope would outlive it.
    twin.validate = ownAjv(dialect, removeAdditional, true).compile(schema);
  } catch {
    twin.validate = null;
  }
  return twin.validate ?? undefined;
}

/** Whether `value` holds at most `limit` values and containers (counted as they are reached, never past it). */
function atMost(value: unknown, limit: number): boolean {
  let seen = 1;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    const children = Array.isArray(v) ? v : Object.values(v);
    seen += children.length;
    if (seen > limit) return false;
    for (const child of children) stack.push(child);
  }
  return true;
}

/** A meta-validation's errors, the first per place in the schema (ajv reports `anyOf`'s branches too). */
function schemaProblems(errors: readonly ErrorObject[]): { message: string; path: string[] }[] {
  const seen = new Map<string, { message: string; path: string[] }>();
  for (const e of errors) {
    if (seen.has(e.instancePath)) continue;
    const path = e.instancePath.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    seen.set(e.instancePath, { message: `schema is invalid: ${describeErrors([e])[0] ?? ''}`.trim(), path });
  }
  return [...seen.values()];
}

/**
 * Run a validator on untrusted data; never throws. ajv's deep-equal (for `enum`/`const` objects) throws on
 * values with an own `valueOf`/`toString` key that is not a function; such a value is simply invalid.
 */
export function check(validate: Validator, value: unknown): { readonly ok: true } | { readonly ok: false; readonly reasons: string[] } {
  try {
    if (validate(value)) return { ok: true };
    const first = describeErrors(validate.errors);
    const twin = twins.get(validate);
    if (!twin) return { ok: false, reasons: first };
    if (!atMost(value, FULL_REASONS_NODES)) return { ok: false, reasons: [...first, `(only the first problem is listed: the value holds more than ${FULL_REASONS_NODES} values)`] };
    const all = twinOf(twin);
    if (!all) return { ok: false, reasons: first };
    // A twin that removes properties works on a copy: the value is the caller's.
    all(twin.removeAdditional !== false && typeof value === 'object' && value !== null ? structuredClone(value) : value);
    return { ok: false, reasons: all.errors ? describeErrors(all.errors) : first };
  } catch (err) {
    return { ok: false, reasons: [`/ cannot be validated (${err instanceof Error ? err.message : String(err)})`] };
  }
}

/** Most failures reported per result; the rest are summarised as "and N more". */
export const MAX_REASONS = 10;

/** One line per ajv error: `<pointer> <message>`, the pointer `/` for the root. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  if (!errors || errors.length === 0) return ['/ does not match the schema'];
  const lines = errors.map((e) => {
    const pointer = e.instancePath === '' ? '/' : e.instancePath;
    let detail = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') detail += ` "${String(e.params.additionalProperty)}"`;
    if (e.keyword === 'enum') detail += `: ${JSON.stringify(e.params.allowedValues)}`;
    return `${pointer} ${detail}`;
  });
  return [...new Set(lines)];
}
