/**
 * Proof that an inferred tool entry works: compile it as the config loader would, then run every sample
 * through the engine entry `try` and the gateway use (`rewriteToolCall`), for a 2025-11-25 client (object
 * roots only: others are wrapped as {result}, or dropped under `legacyRoots: drop`) and a 2026-07-28 one
 * (any root). Every sample must come out `extracted` (or `native`).
 */
import type { ToolConfig, ToolDefaults } from '../config/types.js';
import type { JsonObject } from '../json.js';
import { compileUpstreamPolicy } from '../policy/compile.js';
import { rewriteToolCall } from '../retrofit/engine.js';

/** The revisions every inferred entry is checked for. */
export const VERIFIED_REVISIONS = ['2025-11-25', '2026-07-28'] as const;

/** A result that an inferred entry does not retrofit. */
export interface VerifyFailure {
  /** Where the sample came from (a file, or a call). */
  readonly source: string;
  readonly revision: string;
  readonly reason: string;
}

/** One result to learn from, and where it came from (a recording's file, or `call #N`). */
export interface InferSample {
  readonly result: JsonObject;
  readonly source: string;
}

/** Every sample × revision for which `entry` (as the tool's config) does not give structuredContent. */
export function verifyEntry(tool: string, entry: ToolConfig, samples: readonly InferSample[], defaults: ToolDefaults): VerifyFailure[] {
  const tools: Record<string, ToolConfig> = {};
  Object.defineProperty(tools, tool, { value: entry, enumerable: true });
  const { policy, errors } = compileUpstreamPolicy(
    { name: 'infer', tools },
    defaults,
  );
  if (errors.length > 0) return errors.map((e) => ({ source: 'config', revision: '', reason: `${e.path.slice(4).join('.')}: ${e.message}` }));
  if (policy.resolve(tool)?.key !== tool) return [{ source: 'config', revision: '', reason: 'the tool name reads as a glob that does not match the name itself' }];
  const failures: VerifyFailure[] = [];
  for (const sample of samples) {
    for (const revision of VERIFIED_REVISIONS) {
      const { outcome } = rewriteToolCall(sample.result, tool, policy, revision);
      if (outcome.outcome === 'extracted' || outcome.outcome === 'native') continue;
      failures.push({ source: sample.source, revision, reason: outcome.reasons?.[0] ?? outcome.outcome });
    }
  }
  return failures;
}
