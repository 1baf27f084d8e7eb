/**
 * One tool's policy, compiled: defaults merged, schemas compiled once, the era projection of the output
 * schema precomputed, the regex built. Produced at config load by src/policy/compile.ts.
 */
import type { JsonObject, JsonSchema } from '../json.js';
import type { ExtractConfig, LegacyRoots, OnInvalid, ToolConfig, ToolDefaults } from '../config/types.js';
import { prepareRegexGuard } from './extract/regex-guard.js';
import { compileSchema, type Validator } from './validate.js';
import { isObjectRoot, wrapSchema } from './wrap.js';

/** The compiled output schema and its object-only-era form. */
export interface CompiledOutput {
  /** The schema as configured (served as is to 2026-07-28 clients). */
  readonly schema: JsonSchema;
  readonly validate: Validator;
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
  /** `extract.pattern` (format regex, or auto with a pattern), with `g` when `all`. */
  readonly regex?: RegExp;
  /**
   * Why this tool's extraction cannot be bounded in time on the event loop (a backtracking pattern, a YAML
   * parse), when it cannot: the pipeline then runs its retrofits on the isolation worker, under a deadline.
   */
  readonly isolate?: string;
}

/** A compile problem; `path` is relative to the tool's entry (e.g. ['outputSchema', 'type']). */
export interface ToolCompileError {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

const DEFAULT_EXTRACT: ExtractConfig = { format: 'auto' };

function compileRegex(extract: ExtractConfig, errors: ToolCompileError[]): RegExp | undefined {
  // YAML readings run on the extraction guard's worker too: start it booting at load.
  if (extract.format === 'yaml') prepareRegexGuard();
  // `auto` with a pattern offers the regex reading as one more candidate; json/yaml ignore none (the loader rejects it).
  if (extract.format !== 'regex' && extract.format !== 'auto') return undefined;
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
    const regex = new RegExp(extract.pattern, extract.all ? `${flags}g` : flags);
    // Configured patterns run on the guard's worker; start it booting now, off the request path.
    prepareRegexGuard();
    return regex;
  } catch (err) {
    const path = /flag/i.test(String(err)) ? 'flags' : 'pattern';
    // V8 says "Invalid regular expression: /(/: Unterminated group": keep its detail, not its prefix twice.
    const detail = err instanceof Error ? err.message.replace(/^Invalid regular expression: /, '') : String(err);
    errors.push({ path: ['extract', path], message: `invalid regular expression: ${detail}` });
    return undefined;
  }
}

/** Compile a tool entry against the defaults; errors are collected, never thrown. */
export function compileTool(config: ToolConfig, defaults: ToolDefaults): { tool: CompiledTool; errors: ToolCompileError[] } {
  const errors: ToolCompileError[] = [];
  const extract = config.extract ?? DEFAULT_EXTRACT;
  let output: CompiledOutput | undefined;
  if (config.outputSchema !== undefined) {
    const schema = config.outputSchema;
    const compiled = compileSchema(schema);
    if (!compiled.ok) errors.push({ path: ['outputSchema', ...(compiled.path ?? [])], message: `outputSchema does not compile: ${compiled.message}` });
    else {
      const needsWrap = !isObjectRoot(schema);
      const wrapped = needsWrap ? wrapSchema(schema) : undefined;
      // Prove the wrapped form compiles too, so what object-only clients receive is a valid schema.
      const check = wrapped ? compileSchema(wrapped) : compiled;
      if (!check.ok) errors.push({ path: ['outputSchema'], message: `outputSchema cannot be wrapped for object-only clients: ${check.message}` });
      output = { schema, validate: compiled.validate, needsWrap, ...(wrapped && { wrapped }) };
    }
  }
  let inputSchema: JsonObject | undefined;
  if (config.inputSchema !== undefined) {
    const schema = config.inputSchema;
    const compiled = compileSchema(schema);
    if (!compiled.ok) errors.push({ path: ['inputSchema', ...(compiled.path ?? [])], message: `inputSchema does not compile: ${compiled.message}` });
    else if (!isObjectRoot(schema)) errors.push({ path: ['inputSchema'], message: 'inputSchema must have type: object at its root' });
    else inputSchema = schema as JsonObject;
  }
  const regex = compileRegex(extract, errors);
  if (extract.select !== undefined && extract.select !== '' && !extract.select.startsWith('/')) {
    errors.push({ path: ['extract', 'select'], message: 'select must be a JSON pointer ("" or starting with "/")' });
  }
  const isolate = extract.format === 'yaml' ? 'yaml parsing' : regex ? 'a configured pattern' : undefined;
  const tool: CompiledTool = {
    onInvalid: config.onInvalid ?? defaults.onInvalid,
    legacyRoots: config.legacyRoots ?? defaults.legacyRoots,
    coerce: config.coerce ?? defaults.coerce,
    extract,
    ...(output && { output }),
    ...(inputSchema && { inputSchema }),
    ...(regex && { regex }),
    ...(isolate !== undefined && output && { isolate }),
  };
  return { tool, errors };
}
