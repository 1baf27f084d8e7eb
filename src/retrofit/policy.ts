/**
 * Compiled per-upstream policy: what the retrofit engine needs to rewrite one upstream's messages. The engine
 * defines the shape; src/policy/compile.ts builds one per upstream at config load, immutable afterwards. The
 * proxy treats it as opaque and hands it to the engine functions in ./engine.ts.
 */
import type { CompiledTool } from './compiled.js';
import type { NativeMemory } from './native-memory.js';
import type { ClientIdentity, ClientProfile } from './profile.js';
import type { RecordConfig, ToolConfig, ToolDefaults } from './settings.js';

/** A compiled policy for the tools matched by one `tools:` key. Fields are owned by the engine. */
export interface ToolPolicy {
  /** The `tools:` key that matched (an exact name or a glob). */
  readonly key: string;
  /** The config entry as written (after defaults were applied). */
  readonly config: ToolConfig;
  /** Schemas, regex and settings compiled at load (absent only on hand-built policies; the engine then compiles lazily). */
  readonly compiled?: CompiledTool;
}

export interface UpstreamPolicy {
  readonly upstream: string;
  /** Exact names win; then globs in file order; undefined when no key matches. */
  resolve(tool: string): ToolPolicy | undefined;
  /** The config's `defaults:`; they govern tools without a `tools:` entry (e.g. natively declared schemas). */
  readonly defaults?: ToolDefaults;
  /** What the engine learned from this upstream's tools/list (bounded); created by compileUpstreamPolicy. */
  readonly native?: NativeMemory;
  /** The `tools:` keys in file order (to tell which govern no listed tool); set by compileUpstreamPolicy. */
  readonly keys?: readonly string[];
  /**
   * The upstream's `record:` settings in this config generation, when it records: every tools/call answer of
   * a request sent under this policy is then parsed and offered to the recorder (src/pipeline/record.ts).
   */
  readonly record?: RecordConfig;
  /**
   * Every tools/call's `params.arguments` is kept on its pending request (the operator console is on: the
   * samples it keeps are scrubbed of the argument values, as recordings are).
   */
  readonly keepsArguments?: boolean;
  /** True when some tool's retrofit must run on the isolation worker (CompiledTool.isolate). */
  readonly isolates?: boolean;
  /** The config's client profiles (`clients:`), when it has any: the same for every upstream of a generation. */
  readonly profiles?: { match(client: ClientIdentity): ClientProfile | undefined };
}

/** A problem found while compiling; `path` is from the config root, e.g. ['upstreams','w','tools','t','outputSchema','type']. */
export interface PolicyError {
  readonly path: readonly (string | number)[];
  readonly message: string;
  /** The error is about the key at `path` (a bad glob), not its value. */
  readonly atKey?: boolean;
}
