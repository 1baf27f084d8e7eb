/**
 * The fault suite (issue 23): randomized, seeded, replayable sessions through the built gateway against real
 * upstreams on all three transports, with faults injected at random points (./kinds.ts lists them), and the
 * invariants checked after every session, every chunk and every run (./runner.ts). One test per fault kind,
 * then a mixed run where every session draws its kind.
 *
 * `npm test` runs it short: FAULT_SESSIONS (default 200, and at least one per kind and target: ./schedule.ts)
 * sessions from a fixed seed, plus one fresh seed per run (printed). `npm run faults` runs 20,000 by default. A kind that failed FAULT_MAX_FAILURES sessions
 * stops there; the mixed run makes up its share, so that FAULT_SESSIONS sessions run. Environment: FAULT_SEED (replay; the fresh seed is
 * then not used), FAULT_SESSIONS, FAULT_KINDS, FAULT_TARGETS, FAULT_CONCURRENCY, FAULT_CHUNK (sessions
 * between leak checks), FAULT_MAX_FAILURES (per kind, then its sessions are skipped), FAULT_ATTRIBUTE (how
 * many leaks to trace to one session by replaying), FAULT_TRACE=1 (the gateway's memory after every chunk).
 * A failure prints its seed and a one-line replay command.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { selection } from './kinds.js';
import { freshSeed, stream } from './prng.js';
import { describeFailure, describeKinds, formatReport } from './report.js';
import { FaultRunner, type Item } from './runner.js';
import { FIXED_SEED, itemsOf, schedule } from './schedule.js';

const env = process.env;
const num = (name: string, fallback: number): number => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, not ${value}`);
  return n;
};

const { kinds, targets } = selection(env);
const total = num('FAULT_SESSIONS', 200);
const long = total > 2_000;
const seed = num('FAULT_SEED', FIXED_SEED) >>> 0;
const fresh = env.FAULT_SEED === undefined ? freshSeed() : undefined;
// Kind by kind, then mixed (./schedule.ts) — plus, in the mixed run, the sessions of kinds that stopped after
// too many failures, so that at least `total` sessions run.
const { perKind, mixed } = schedule(kinds, targets, total, fresh !== undefined);
const planned = [...perKind.values()].reduce((a, b) => a + b, 0) + mixed;
const options = {
  seed,
  targets,
  concurrency: Math.max(1, num('FAULT_CONCURRENCY', 8)),
  chunk: Math.max(1, num('FAULT_CHUNK', long ? 200 : 24)),
  maxFailures: Math.max(1, num('FAULT_MAX_FAILURES', long ? 5 : 2)),
  attribute: num('FAULT_ATTRIBUTE', long ? 3 : 0),
  trace: env.FAULT_TRACE === '1',
  log: (line: string) => void process.stderr.write(`[faults] ${line}\n`),
};
const KIND_TIMEOUT_MS = long ? 6 * 3_600_000 : 180_000;


describe('fault suite', () => {
  let world: World | undefined;
  let runner: FaultRunner | undefined;
  const started = Date.now();

  beforeAll(async () => {
    const counts = [...new Set(perKind.values())].sort((a, b) => a - b);
    options.log(`seed ${seed}${fresh !== undefined ? `, fresh seed ${fresh}` : ''}; ${planned} sessions (${counts.join('–')} per kind, ${mixed} mixed); concurrency ${options.concurrency}; targets ${targets.join(', ')}`);
    options.log(`kinds:\n${describeKinds(kinds)}`);
    world = await startWorld();
    runner = new FaultRunner(world, options);
    await runner.warmUp();
  }, 120_000);

  afterAll(async () => {
    if (runner) {
      const cpu = process.cpuUsage();
      const gatewayCpu = world?.gateway().cpuSeconds() ?? 0;
      const header =
        `fault suite: seed ${seed}${fresh !== undefined ? ` (fresh seed ${fresh})` : ''}, ${((Date.now() - started) / 1000).toFixed(1)} s, concurrency ${options.concurrency}, ` +
        `gateway restarts ${world?.restarts ?? 0}; CPU: suite ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, gateway ${gatewayCpu.toFixed(1)} s (since its last start)`;
      options.log(formatReport(runner.tallies, header));
    }
    await world?.close();
  }, 60_000);

  it.each(kinds)('%s: the invariants hold', async (kind) => {
    await runner!.run(itemsOf(kind, perKind.get(kind)!, seed, fresh), kind);
    const t = runner!.tally(kind);
    expect(t.failed + t.leakFailures + t.memoryFailures, `${kind}:\n${t.failures.map(describeFailure).join('\n')}`).toBe(0);
  }, KIND_TIMEOUT_MS);

  it.runIf(mixed >= kinds.length)('mixed kinds: the invariants hold', async () => {
    // Kinds still running (not stopped for failures), and as many sessions as it takes to reach `total`.
    const open = kinds.filter((k) => runner!.tally(k).failed < options.maxFailures);
    const ran = [...runner!.tallies.values()].reduce((n, t) => n + t.run, 0);
    const items = Array.from({ length: open.length === 0 ? 0 : Math.max(mixed, planned - ran) }, (_, j): Item => {
      const s = (seed + 0x10000 + j) >>> 0;
      return { seed: s, kind: stream(s, 3).pick(open) };
    });
    // Counted per kind (the mixed run's sessions count for their own kinds): what failed from here on is the mixed run's.
    const failedSoFar = (): Map<string, { count: number; listed: number }> =>
      new Map([...runner!.tallies].map(([k, t]) => [k, { count: t.failed + t.leakFailures + t.memoryFailures, listed: t.failures.length }]));
    const before = failedSoFar();
    await runner!.run(items, 'mixed');
    const after = failedSoFar();
    const failed = [...after].reduce((n, [k, a]) => n + a.count - (before.get(k)?.count ?? 0), 0);
    const listed = [...runner!.tallies].flatMap(([k, t]) => t.failures.slice(before.get(k)?.listed ?? 0));
    expect(failed, listed.map(describeFailure).join('\n')).toBe(0);
  }, KIND_TIMEOUT_MS);
});
