/**
 * Compile one upstream's `tools:` section into an UpstreamPolicy: schemas compiled by ajv, regexes built,
 * globs matched. Called once at config load; errors carry config paths so the loader can report FILE:LINE:COL.
 *
 * STUB: resolves exact names only and compiles nothing until the engine lands.
 */
import type { ToolDefaults, UpstreamConfig } from '../config/types.js';
import type { PolicyError, ToolPolicy, UpstreamPolicy } from './types.js';

export function compileUpstreamPolicy(
  upstream: UpstreamConfig,
  _defaults: ToolDefaults,
): { policy: UpstreamPolicy; errors: PolicyError[] } {
  const byName = new Map<string, ToolPolicy>();
  for (const [key, config] of Object.entries(upstream.tools)) byName.set(key, { key, config });
  return { policy: { upstream: upstream.name, resolve: (tool) => byName.get(tool) }, errors: [] };
}
