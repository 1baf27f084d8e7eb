/**
 * One tool's policy, compiled: defaults merged, schemas compiled once (once per removeAdditional mode), the
 * era projection of the output schema precomputed, the pattern built. Produced at config load by
 * src/policy/compile.ts.
 */
import type { JsonObject, JsonSchema } from '../json.js';
import { TOOL_DEFAULTS, type ExtractConfig, type LegacyRoots, type OnInvalid, type RemoveAdditional, type ToolConfig, type ToolDefaults } from './settings.js';
import { compilePattern, type CompiledPattern } from './extract/pattern.js';
import { compileSchema, mentionsId, type Validator } from './validate.js';
import { compileBranchChecks, type BranchCheck } from './branch-checks.js';
import { SchemaScope } from './schema-scope.js';
import { isObjectRoot, wrapSchema } from './wrap.js';
import { schemaTypos } from './schema-typos.js';
import { objectifyProperties } from './repair.js';
import { draft07Gaps } from './draft07-reading.js';
import { schemaCycles } from './schema-cycles.js';

/** The compiled output schema and its object-only-era form. */
export interface CompiledOutput {
  /** The schema as configured (served as is to 2026-07-28 clients). */
  readonly schema: JsonSchema;
  /** Validates extracted values; with `removeText`, it also drops what that mode removes (in place). */
  readonly validate: Validator;
  /** Validates the upstream's own structuredContent; with `removeNative`, it also drops (in place). */
  readonly validateNative: Validator;
  /** The removeAdditional mode of `validate` (false: it never changes the value). */
  readonly removeText: RemoveAdditional;
  /** The removeAdditional mode of `validateNative`: only a mode the tool's own entry sets. */
  readonly removeNative: RemoveAdditional;
  /**
   * The schema's validator that removes nothing, when `validate` or `validateNative` removes: a value they
   * passed is checked by it again, because ajv removes properties while it tries `anyOf`/`oneOf` branches that
   * then fail, and a keyword checked earlier (`required`, `$ref`) may no longer hold for what is left.
   */
  readonly confirm?: Validator;
  /** Validates a value against one of the schema's anyOf/oneOf branches, for coercion; absent without any. */
  readonly branches?: BranchCheck;
  /** True when object-only clients cannot take the schema as is (its root `type` is not "object"). */
  readonly needsWrap: boolean;
  /** `{type:"object",properties:{result:S},required:["result"]}` when needsWrap, else undefined. */
  readonly wrapped?: JsonObject;
}

/** A tool's policy after compilation; everything the engine needs at request time. */
export interface CompiledTool {
  readonly onInvalid: OnInvalid;
  readonly legacyRoots: LegacyRoots;
  readonly coerce: boolean;
  readonly extract: ExtractConfig;
  readonly output?: CompiledOutput;
  /** A configured replacement inputSchema. */
  readonly inputSchema?: JsonObject;
  /** `extract.pattern` (format regex or list, or auto with a pattern), compiled: RE2 where it can run it. */
  readonly pattern?: CompiledPattern;
  /** The pattern as a JavaScript RegExp, with `g` when `all` (= pattern.js). */
  readonly regex?: RegExp;
  /**
   * Set, to a short reason, exactly when this tool's extraction includes a step whose time cannot be bounded
   * (src/retrofit/extract/unbounded.ts): a YAML parse, or a pattern RE2 cannot run (or cannot run on every
   * text). The rewrite pipeline runs such tools' retrofits only on its isolation worker thread, under a
   * deadline; every other tool's retrofit is linear and runs where the pipeline decides.
   */
  readonly isolate?: string;
}

/** A compile problem; `path` is relative to the tool's entry (e.g. ['outputSchema', 'type']). */
export interface ToolCompileError {
  readonly path: readonly (string | number)[];
  readonly message: string;
  /** The problem is about the schema written under the key at `path` as a whole: placed at that key. */
  readonly atKey?: boolean;
}

const DEFAULT_EXTRACT: ExtractConfig = { format: 'auto' };
const TAKES_PATTERN = new Set(['regex', 'auto', 'list']);

function compileExtractPattern(extract: ExtractConfig, errors: ToolCompileError[]): CompiledPattern | undefined {
  // `auto` and `list` with a pattern use it too; the other formats cannot have one (the loader rejects it).
  if (!TAKES_PATTERN.has(extract.format)) return undefined;
  if (extract.pattern === undefined) {
    if (extract.format === 'regex') errors.push({ path: ['extract'], message: 'format regex needs a pattern' });
    return undefined;
  }
  const flags = extract.flags ?? '';
  if (/[gy]/.test(flags)) {
    errors.push({ path: ['extract', 'flags'], message: 'flags g and y are not allowed; `all` decides global matching' });
    return undefined;
  }
  try {
    return compilePattern(extract.pattern, flags, extract.format !== 'list' && extract.all === true);
  } catch (err) {
    const path = /flag/i.test(String(err)) ? 'flags' : 'pattern';
    // V8 says "Invalid regular expression: /(/: Unterminated group": keep its detail, not its prefix twice.
    const detail = err instanceof Error ? err.message.replace(/^Invalid regular expression: /, '') : String(err);
    errors.push({ path: ['extract', path], message: `invalid regular expression: ${detail}` });
    return undefined;
  }
}

function compileOutput(schema: JsonSchema, removeText: RemoveAdditional, removeNative: RemoveAdditional, scope: SchemaScope, errors: ToolCompileError[]): CompiledOutput | undefined {
  // ajv ignores unknown keywords: a mistyped one would leave the schema looser than written, silently.
  const typos = schemaTypos(schema);
  for (const t of typos) errors.push({ path: ['outputSchema', ...t.path], message: `"${t.key}" is no JSON Schema keyword, so it would constrain nothing (did you mean "${t.keyword}"? an annotation meant as it is takes an "x-" name)` });
  // A schema that recurses without end would make every result an error (ajv overflows its stack validating
  // it, or compiling it): refused at load, saying where and why.
  const cycles = schemaCycles(schema);
  for (const c of cycles) errors.push({ path: ['outputSchema', ...c.path], message: c.message, atKey: true });
  if (cycles.length > 0) return undefined;
  const compiled = compileSchema(schema, removeText, scope);
  if (!compiled.ok) {
    for (const p of compiled.problems) errors.push({ path: ['outputSchema', ...p.path], message: `outputSchema does not compile: ${p.message}` });
    return undefined;
  }
  // A value valid here must be valid to every client's validator too (the v1 SDK client's reads draft-07).
  const gaps = draft07Gaps(schema, compiled.dialect);
  for (const gap of gaps) errors.push({ path: ['outputSchema', ...gap.path], message: gap.message });
  const native = removeNative === removeText ? compiled : compileSchema(schema, removeNative, scope);
  const plain = removeText === false ? compiled : removeNative === false ? native : compileSchema(schema, false, scope);
  const needsWrap = !isObjectRoot(schema);
  const wrapped = needsWrap ? wrapSchema(schema) : undefined;
  // Prove the wrapped form compiles too, so what object-only clients receive is a valid schema.
  const check = wrapped ? compileSchema(wrapped, false, scope) : compiled;
  if (!check.ok) errors.push({ path: ['outputSchema'], message: `outputSchema cannot be wrapped for object-only clients: ${check.message}` });
  if (!native.ok || !plain.ok || typos.length > 0 || gaps.length > 0) return undefined;
  const removes = removeText !== false || removeNative !== false;
  const branches = compileBranchChecks(schema, compiled.dialect, scope, mentionsId(schema));
  return { schema, validate: compiled.validate, validateNative: native.validate, removeText, removeNative, ...(removes && { confirm: plain.validate }), ...(branches && { branches }), needsWrap, ...(wrapped && { wrapped }) };
}

/**
 * Compile a tool entry against the defaults; errors are collected, never thrown. Its validators compile in
 * `scope` and keep it alive (src/retrofit/schema-scope.ts): the tools of one config generation's upstream share
 * one; by default the tool has a scope of its own (an offload worker's tool, dropped when it is forgotten).
 */
export function compileTool(config: ToolConfig, defaults: ToolDefaults, scope: SchemaScope = new SchemaScope()): { tool: CompiledTool; errors: ToolCompileError[] } {
  const errors: ToolCompileError[] = [];
  const extract = config.extract ?? DEFAULT_EXTRACT;
  const removeText = config.removeAdditional ?? defaults.removeAdditional ?? TOOL_DEFAULTS.removeAdditional;
  const output = config.outputSchema === undefined ? undefined : compileOutput(config.outputSchema, removeText, config.removeAdditional ?? false, scope, errors);
  let inputSchema: JsonObject | undefined;
  if (config.inputSchema !== undefined) {
    const schema = config.inputSchema;
    const compiled = compileSchema(schema, false, scope);
    if (!compiled.ok) for (const p of compiled.problems) errors.push({ path: ['inputSchema', ...p.path], message: `inputSchema does not compile: ${p.message}` });
    else if (!isObjectRoot(schema)) errors.push({ path: ['inputSchema'], message: 'inputSchema must have type: object at its root' });
    // Boolean property schemas compile but the v1 SDK rejects the whole list over them: serve their object forms.
    else inputSchema = objectifyProperties(schema as JsonObject) ?? (schema as JsonObject);
  }
  const pattern = compileExtractPattern(extract, errors);
  if (extract.select !== undefined && extract.select !== '' && !extract.select.startsWith('/')) {
    errors.push({ path: ['extract', 'select'], message: 'select must be a JSON pointer ("" or starting with "/")' });
  }
  const isolate = extract.format === 'yaml' ? 'yaml parsing' : pattern?.isolate;
  const tool: CompiledTool = {
    onInvalid: config.onInvalid ?? defaults.onInvalid,
    legacyRoots: config.legacyRoots ?? defaults.legacyRoots,
    coerce: config.coerce ?? defaults.coerce,
    extract,
    ...(output && { output }),
    ...(inputSchema && { inputSchema }),
    ...(pattern && { pattern, regex: pattern.js }),
    ...(isolate !== undefined && { isolate }),
  };
  return { tool, errors };
}
