/**
 * What the short run (npm test) of the fixed seed reaches, whatever its fresh seed: every kind on every target
 * it applies to, and the variants the known bugs need (./schedule.ts FIXED_SEED). Plans only: nothing runs.
 */
import { describe, expect, it } from 'vitest';
import { directiveOf, type UpstreamFault } from './directive.js';
import { TARGET_NAMES } from './harness.js';
import { KIND_NAMES, targetsOf } from './kinds.js';
import { makePlan, type SessionPlan } from './plan.js';
import { FIXED_SEED, itemsOf, schedule } from './schedule.js';

const SHORT_RUN = 200;
const { perKind } = schedule(KIND_NAMES, TARGET_NAMES, SHORT_RUN, true);
// The fresh seed takes each kind's last session: what the fixed seed reaches is the rest.
const plans: SessionPlan[] = KIND_NAMES.flatMap((kind) => itemsOf(kind, perKind.get(kind)!, FIXED_SEED, undefined).slice(0, -1).map((i) => makePlan(i.seed, i.kind, TARGET_NAMES)));

const faultsOf = (p: SessionPlan): UpstreamFault[] => p.posts.flatMap((post) => post.messages.map((m) => directiveOf(m as unknown as Record<string, unknown>)?.fault)).filter((f): f is UpstreamFault => f !== undefined);
const clientFaults = (p: SessionPlan) => p.posts.map((post) => post.client).filter((c) => c !== undefined);

describe('the short run of the fixed seed', () => {
  it('takes every kind to every target it applies to', () => {
    const reached = new Set(plans.map((p) => `${p.kind}@${p.target}`));
    const missing = KIND_NAMES.flatMap((k) => targetsOf(k, TARGET_NAMES).map((t) => `${k}@${t}`)).filter((pair) => !reached.has(pair));
    expect(missing).toEqual([]);
  });

  it('holds the variants the known bugs need', () => {
    const some = (test: (p: SessionPlan) => boolean): boolean => plans.some(test);
    expect({
      endlessOnProxiedStream: some((p) => p.target === 'http' && faultsOf(p).some((f) => f.kind === 'endless' && f.where === 'stream')),
      endlessAfterAnswer: some((p) => faultsOf(p).some((f) => f.kind === 'endless' && f.where === 'after')),
      resetAfterHeaders: some((p) => faultsOf(p).some((f) => f.kind === 'reset-early' && f.headers)),
      stalledBody: some((p) => clientFaults(p).some((c) => c.kind === 'slowloris' && c.stallAfter !== undefined)),
      neverComesBack: some((p) => ['stdio', 'shared', 'sse'].includes(p.target) && clientFaults(p).some((c) => c.kind === 'vanish' && !c.returns)),
      expectContinueProxied: some((p) => p.target === 'http' && p.kind === 'expect-continue'),
      invalidAnswer: some((p) => faultsOf(p).some((f) => f.kind === 'invalid-answer')),
      legacyFlood: some((p) => p.target === 'legacy' && p.kind === 'pending-flood'),
      legacyReusedId: some((p) => p.target === 'legacy' && p.kind === 'duplicate-id'),
      sharedSlowInitialize: some((p) => p.target === 'shared' && p.kind === 'slow-initialize'),
    }).toEqual({
      endlessOnProxiedStream: true,
      endlessAfterAnswer: true,
      resetAfterHeaders: true,
      stalledBody: true,
      neverComesBack: true,
      expectContinueProxied: true,
      invalidAnswer: true,
      legacyFlood: true,
      legacyReusedId: true,
      sharedSlowInitialize: true,
    });
  });
});
