/**
 * Which sessions a run holds: how many of each kind (by its own seeds, the run's seed counting up; in a fresh
 * run the last one is the fresh seed) and how many mixed. Three quarters of the sessions go kind by kind, the
 * rest are mixed; a kind gets at least one session per target it applies to besides the fresh seed's, so the
 * fixed seed alone takes every kind to every target (consecutive seeds go round a kind's targets: ./plan.ts),
 * and the mixed run at least RSS_MIN_SESSIONS, so that its RSS is compared. The short run (200 asked) thus
 * holds about 280.
 * One kind alone (a replay) runs all of them, seed after seed. ./schedule.test.ts checks what the short run
 * (npm test) of the fixed seed reaches.
 */
import type { Target } from './harness.js';
import { targetsOf, type FaultKind } from './kinds.js';
import { RSS_MIN_SESSIONS, type Item } from './runner.js';

/**
 * The fixed seed of the short run (npm test): the same sessions every time, plus one fresh seed. Its seeds
 * per kind take every kind to every target it applies to and hold the variants the known bugs need: an
 * endless message on the proxied GET stream and after an answer, a reset after SSE headers, a stalled body,
 * a client that never comes back, Expect: 100-continue to a proxied upstream, an invalid answer, a flood and
 * a reused id on a legacy session, a slow initialize in share mode (./schedule.test.ts).
 */
export const FIXED_SEED = 0x23fa0078;

export interface Schedule {
  /** Sessions of each kind, run kind by kind. */
  readonly perKind: ReadonlyMap<FaultKind, number>;
  /** Sessions of the mixed run (each draws its kind). */
  readonly mixed: number;
}

/** How many sessions of each kind and mixed a run of `total` sessions holds. */
export function schedule(kinds: readonly FaultKind[], targets: readonly Target[], total: number, fresh: boolean): Schedule {
  if (kinds.length === 1) return { perKind: new Map([[kinds[0]!, total]]), mixed: 0 };
  const base = Math.max(1, Math.floor((total * 0.75) / Math.max(1, kinds.length)));
  const perKind = new Map(kinds.map((k) => [k, Math.max(base, targetsOf(k, targets).length + (fresh ? 1 : 0))] as const));
  // The rest of `total`, and enough for the mixed run's RSS to be compared.
  const rest = total - [...perKind.values()].reduce((a, b) => a + b, 0);
  return { perKind, mixed: Math.max(rest, Math.min(total - base * kinds.length, RSS_MIN_SESSIONS)) };
}

/** A kind's session seeds: the run's seed counting up; in a fresh run the last one is the fresh seed. */
export function itemsOf(kind: FaultKind, count: number, seed: number, fresh: number | undefined): Item[] {
  return Array.from({ length: count }, (_, j) => ({ kind, seed: j === count - 1 && fresh !== undefined && count > 1 ? fresh : (seed + j) >>> 0 }));
}
