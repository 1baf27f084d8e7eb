/**
 * Compile one upstream's `tools:` section into an UpstreamPolicy: defaults merged, schemas compiled by ajv,
 * regexes built, keys matched by name or glob. Called once at config load; errors carry config paths from
 * the config root so the loader can report FILE:LINE:COL.
 */
import { compileTool } from '../retrofit/compiled.js';
import { SchemaScope } from '../retrofit/schema-scope.js';
import { createNativeMemory } from '../retrofit/native-memory.js';
import type { ProfileMatcher } from './clients.js';
import { createMatcher, globProblem } from './match.js';
import type { PolicyError, ToolPolicy, UpstreamPolicy } from '../retrofit/policy.js';
import type { RecordConfig, ToolConfig, ToolDefaults } from '../retrofit/settings.js';

/** What a policy is compiled from: the parts of an upstream's config that concern its tools. */
export interface PolicySource {
  /** The key under `upstreams:` (errors are placed under it). */
  readonly name: string;
  /** `tools:` entries by key, in file order. */
  readonly tools: Readonly<Record<string, ToolConfig>>;
  readonly record?: RecordConfig;
  /** Keep every tools/call's arguments on its pending request (the operator console scrubs samples of them). */
  readonly keepsArguments?: boolean;
}

export function compileUpstreamPolicy(
  upstream: PolicySource,
  defaults: ToolDefaults,
  profiles?: ProfileMatcher,
): { policy: UpstreamPolicy; errors: PolicyError[] } {
  const errors: PolicyError[] = [];
  const byKey = new Map<string, ToolPolicy>();
  // The validators of this policy's tools share their ajv instances, and go with the policy (a replaced config's
  // once no request holds it): src/retrofit/schema-scope.ts.
  const scope = new SchemaScope();
  for (const [key, config] of Object.entries(upstream.tools)) {
    const base = ['upstreams', upstream.name, 'tools', key] as const;
    const problem = globProblem(key);
    if (problem) errors.push({ path: [...base], message: problem, atKey: true });
    const { tool, errors: toolErrors } = compileTool(config, defaults, scope);
    for (const e of toolErrors) errors.push({ path: [...base, ...e.path], message: e.message, ...(e.atKey === true && { atKey: true }) });
    byKey.set(key, { key, config, compiled: tool });
  }
  const matcher = createMatcher([...byKey.keys()]);
  const policy: UpstreamPolicy = {
    upstream: upstream.name,
    defaults,
    native: createNativeMemory(),
    keys: [...byKey.keys()],
    ...(upstream.record && { record: upstream.record }),
    ...(upstream.keepsArguments === true && { keepsArguments: true }),
    ...(profiles && { profiles }),
    ...([...byKey.values()].some((t) => t.compiled?.isolate !== undefined) && { isolates: true }),
    resolve(tool) {
      const key = matcher.match(tool);
      return key === undefined ? undefined : byKey.get(key);
    },
  };
  return { policy, errors };
}
