/**
 * What a client gets of a tool's configured retrofit, decided from the client's side: the one place the live
 * pipeline (./rewrite.ts, inline and from a worker's answer) and `mcp-retrofit try` decide it, so `try` prints
 * what a client of that revision and profile would get.
 *
 * `shadow`: configured to run and be counted only; `unseen`: the client was shown no outputSchema for the tool
 * (a revision without structured output, a non-object root dropped by `legacyRoots: drop`, a profile with
 * `outputSchema: strip`); `applied` otherwise. A client in `unseen` never gets a failed reading's isError: it
 * gets the upstream's result as if no schema were configured (only native structuredContent projected).
 */
import type { JsonObject } from '../json.js';
import { isShadowEntry, rewriteToolCall, type CallOutcome } from '../retrofit/engine.js';
import type { ClientProfile } from '../retrofit/profile.js';
import type { ToolPolicy, UpstreamPolicy } from '../retrofit/policy.js';
import { projectionFor } from '../retrofit/project.js';
import type { RetrofitMode } from './report.js';

/** How the retrofit of `entry` reaches a client on `revision` with `profile`. */
export function retrofitMode(policy: UpstreamPolicy, entry: ToolPolicy | undefined, revision: string, profile: ClientProfile | undefined): RetrofitMode {
  const compiled = entry?.compiled;
  if (!entry || !compiled?.output) return 'applied';
  if (isShadowEntry(policy, entry)) return 'shadow';
  // A profile that strips schemas shows the client none: it is served as a client that never saw one.
  if (profile?.outputSchema === 'strip') return 'unseen';
  return projectionFor(revision, !compiled.output.needsWrap, compiled.legacyRoots) === 'drop' ? 'unseen' : 'applied';
}

/** A policy view without configured tools, for the native projection of a result whose schema the client never saw. */
export function withoutConfig(policy: UpstreamPolicy): UpstreamPolicy {
  return { ...policy, resolve: () => undefined };
}

/** The upstream's `result` as a client that was shown no configured schema gets it (only native structuredContent projected). */
export function asIfUnconfigured(policy: UpstreamPolicy, tool: string, result: JsonObject, revision: string, profile: ClientProfile | undefined): JsonObject {
  return rewriteToolCall(result, tool, withoutConfig(policy), revision, profile).result;
}

/** What the client gets of a result the engine made `out` of, with `outcome`, in `mode`. */
export function delivered(policy: UpstreamPolicy, tool: string, result: JsonObject, out: JsonObject, outcome: CallOutcome, mode: RetrofitMode, revision: string, profile: ClientProfile | undefined): JsonObject {
  if (mode !== 'unseen') return out;
  const failed = outcome.outcome === 'invalid' || outcome.outcome === 'unparseable';
  return failed ? asIfUnconfigured(policy, tool, result, revision, profile) : out;
}
