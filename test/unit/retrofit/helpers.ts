/** Building compiled policies for engine tests, the way the config loader does. */
import type { ToolConfig, ToolDefaults } from '../../../src/config/types.js';
import { compileUpstreamPolicy } from '../../../src/policy/compile.js';
import type { UpstreamPolicy } from '../../../src/retrofit/policy.js';

export const TEST_DEFAULTS: ToolDefaults = { onInvalid: 'error', legacyRoots: 'wrap', coerce: true };

/** Compile a policy for an upstream named `u` with these tools; throws on compile errors. */
export function upstreamWith(tools: Record<string, ToolConfig>, defaults: ToolDefaults = TEST_DEFAULTS): UpstreamPolicy {
  const { policy, errors } = compileUpstreamPolicy(
    { name: 'u', tools },
    defaults,
  );
  if (errors.length > 0) throw new Error(errors.map((e) => `${e.path.join('.')}: ${e.message}`).join('\n'));
  return policy;
}
