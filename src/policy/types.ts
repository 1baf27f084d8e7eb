/**
 * Compiled per-upstream policy: what the retrofit engine needs to rewrite one upstream's messages.
 * Built once at config load by `compileUpstreamPolicy` (src/policy/compile.ts); immutable afterwards.
 * The proxy treats it as opaque and hands it to the engine functions in src/retrofit/engine.ts.
 */
import type { ToolConfig } from '../config/types.js';

/** A compiled policy for the tools matched by one `tools:` key. Fields are owned by the engine. */
export interface ToolPolicy {
  /** The `tools:` key that matched (an exact name or a glob). */
  readonly key: string;
  /** The config entry as written (after defaults were applied). */
  readonly config: ToolConfig;
}

export interface UpstreamPolicy {
  readonly upstream: string;
  /** Exact names win; then globs in file order; undefined when no key matches. */
  resolve(tool: string): ToolPolicy | undefined;
}

/** A problem found while compiling; `path` is from the config root, e.g. ['upstreams','w','tools','t','outputSchema','type']. */
export interface PolicyError {
  readonly path: readonly (string | number)[];
  readonly message: string;
}
