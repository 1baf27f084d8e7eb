/**
 * The per-tool retrofit settings, as the engine reads them: what a `tools:` entry, `defaults:` and `record:`
 * hold once loaded. They live here, below the config loader, because the engine and its policies are built
 * from them; src/config/types.ts re-exports them with the rest of the loaded configuration.
 */
import type { JsonSchema } from '../json.js';

/**
 * What to do when a result cannot be turned into valid structuredContent: `error` answers an isError result;
 * `passthrough` serves the tool in shadow mode (see ToolConfig.shadow), so no client ever sees a schema that
 * a passed-through result would break.
 */
export type OnInvalid = 'error' | 'passthrough';
/** How non-object roots are served to 2025-06-18 / 2025-11-25 clients. */
export type LegacyRoots = 'wrap' | 'drop';
/** Extraction strategy for text results (`table`, `csv`, `list`: tabular and listed prose). */
export type ExtractFormat = 'auto' | 'json' | 'yaml' | 'regex' | 'table' | 'csv' | 'list';
/**
 * Dropping properties the outputSchema does not allow, before validation (ajv's `removeAdditional`):
 * `false` keeps them (the default), `true` drops those where the schema says `additionalProperties: false`,
 * `all` drops every property a schema with `properties` does not name.
 */
export type RemoveAdditional = boolean | 'all';

/** Per-tool extraction settings (`extract:`). */
export interface ExtractConfig {
  /** Strategy; `auto` tries the contract's candidates in order. */
  readonly format: ExtractFormat;
  /**
   * `regex` (required), `auto` (tried after relaxed JSON) and `list` (each item matched): a JavaScript
   * regular expression; named groups become fields.
   */
  readonly pattern?: string;
  /** With `pattern`: JavaScript flags (m, i, s, u). */
  readonly flags?: string;
  /** `regex` and `auto` only: every match, as an array. */
  readonly all?: boolean;
  /** `csv` only: the field separator, one character (default `,`; `"\t"` for TSV). */
  readonly delimiter?: string;
  /** A JSON pointer into the parsed value. */
  readonly select?: string;
  /** Wrap the (selected) value as `{ [wrap]: value }`. */
  readonly wrap?: string;
}

/** Settings every tool inherits unless it overrides them (`defaults:`). */
export interface ToolDefaults {
  readonly onInvalid: OnInvalid;
  readonly legacyRoots: LegacyRoots;
  readonly coerce: boolean;
  /** `defaults.shadow`: every tool's configured schema runs in shadow unless its upstream or entry says otherwise. */
  readonly shadow?: boolean;
  /** For extracted values of tools that do not set their own (default false); never for native structuredContent. */
  readonly removeAdditional?: RemoveAdditional;
}

/**
 * True when a tool entry's configured schema runs in shadow (ToolConfig.shadow, inherited; or `onInvalid:
 * passthrough`, which passes failures through and so must never show the client the schema they break).
 * The one rule: the engine serves by it (engine.ts isShadowEntry), the loader checks served schemas by it.
 */
export function isShadowed(config: ToolConfig, defaults: ToolDefaults): boolean {
  return (config.shadow ?? defaults.shadow === true) || (config.onInvalid ?? defaults.onInvalid) === 'passthrough';
}

/** One entry under an upstream's `tools:` (key: exact tool name or glob). */
export interface ToolConfig {
  /** The outputSchema, inline or read from `outputSchemaFile`. */
  readonly outputSchema?: JsonSchema;
  /** Absolute path of the file the outputSchema came from, when it came from a file. */
  readonly outputSchemaFile?: string;
  /** A replacement inputSchema, inline or read from `inputSchemaFile`. */
  readonly inputSchema?: JsonSchema;
  /** Absolute path of the file the inputSchema came from, when it came from a file. */
  readonly inputSchemaFile?: string;
  readonly extract?: ExtractConfig;
  readonly onInvalid?: OnInvalid;
  /**
   * True when the tool's retrofit runs in shadow: logged and counted, but tools/list keeps the upstream's
   * definition (repairs aside) and clients get the upstream's result unchanged. Inherited tool > upstream >
   * defaults, and written here whenever one of them sets it (absent: `defaults.shadow` of the policy, else
   * false). `onInvalid: passthrough` also runs a tool in shadow (see src/retrofit/engine.ts `inShadow`).
   */
  readonly shadow?: boolean;
  readonly legacyRoots?: LegacyRoots;
  readonly coerce?: boolean;
  /**
   * Set only when the tool's own entry sets it (not inherited): then it also applies to the upstream's own
   * structuredContent. Extracted values inherit `defaults.removeAdditional` when this is absent.
   */
  readonly removeAdditional?: RemoveAdditional;
}

/**
 * `record:` of one upstream, merged with `defaults.record` key by key: real tools/call results kept as JSON
 * files (DIR/<upstream>/<tool>/…) for `mcp-retrofit infer`. Absent when recording is off for the upstream.
 */
export interface RecordConfig {
  /** Absolute directory (written relative to the config file's directory). */
  readonly dir: string;
  /** Newest results kept per tool (default 20; `maxPerTool: 0` in the file turns recording off). */
  readonly maxPerTool: number;
  /** Largest result recorded, in bytes of its JSON (default 262144); larger ones are skipped and counted. */
  readonly maxBytes: number;
  /**
   * More `env:`/`headers:` names whose values are secrets (case-insensitive, `*` matches any run), beside the
   * built-in ones (TOKEN, KEY, SECRET, PASSWORD, …): `secretNames: [DSN, "*_URL"]`.
   */
  readonly secretNames?: readonly string[];
}

/** The tool settings every tool gets when neither it nor `defaults:` says otherwise. */
export const TOOL_DEFAULTS: ToolDefaults & { readonly removeAdditional: RemoveAdditional } = Object.freeze({
  onInvalid: 'error',
  legacyRoots: 'wrap',
  coerce: true,
  removeAdditional: false,
});
