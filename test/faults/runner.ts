/**
 * Runs seeded sessions against one world (./harness.ts), a few at a time, and keeps the tally: the
 * per-session invariants (./checks.ts) after each session; after each chunk of sessions, once nothing runs,
 * no count of the gateway's above its baseline (leak); after each run (one kind's sessions, or the mixed
 * ones), RSS after a full GC within 10% of its baseline, the highest taken the same way in the run's first
 * half (rss; runs of at least RSS_MIN_SESSIONS sessions; past it, the second half runs again, up to
 * RSS_CONFIRM_ROUNDS times, until RSS stays where it ended: a plateau, not a leak), and
 * the run's peak RSS within an allowance per concurrent session of the RSS before it (peak-rss). A gateway that died is
 * started again and warmed up; the sessions it took with it fail `alive`. A kind that failed `maxFailures`
 * sessions is not run further (its remaining sessions count as skipped).
 */
import { runAndCheck, runPlan } from './checks.js';
import type { DebugSnapshot } from './gateway.js';
import { SHORT_TIMER_MS, TARGET_NAMES, type Target, type World } from './harness.js';
import { busy, leaks, type Invariant } from './invariants.js';
import type { FaultKind } from './kinds.js';
import { makePlan, type SessionPlan } from './plan.js';

export interface Item {
  readonly seed: number;
  readonly kind: FaultKind;
}

/** A kind's tally, or the mixed run's (its memory checks). */
export type TallyKey = FaultKind | 'mixed';

export interface Failure {
  readonly seed: number;
  readonly kind: TallyKey;
  readonly target: Target | undefined;
  readonly invariant: Invariant;
  readonly detail: string;
  /** What the session noted on the way (an initialize refused, …), on its first failure only. */
  readonly context?: readonly string[];
  /** How to replay it, when it is not one session (a chunk's leak, a run's memory). */
  readonly replay?: string;
}

export interface Tally {
  run: number;
  passed: number;
  failed: number;
  skipped: number;
  leakChecks: number;
  leakFailures: number;
  memoryChecks: number;
  memoryFailures: number;
  /** The highest RSS seen while the kind ran (bytes; 0 when it could not be measured). */
  peak: number;
  readonly byInvariant: Partial<Record<Invariant, number>>;
  readonly failures: Failure[];
}

export interface RunnerOptions {
  /** The run's seed (for replay commands). */
  readonly seed: number;
  readonly targets: readonly Target[];
  readonly concurrency: number;
  /** Sessions between two leak checks. */
  readonly chunk: number;
  readonly maxFailures: number;
  /** How many leaks may be traced to one session by replaying a chunk's sessions alone. */
  readonly attribute: number;
  /** Log the gateway's memory (after a full GC) and counts after every chunk. */
  readonly trace: boolean;
  readonly log: (line: string) => void;
}

/** A full GC's RSS may exceed the baseline's by this much. */
export const RSS_TOLERANCE = 0.1;
/**
 * The fewest sessions a run needs for its RSS to be compared (the mixed run of `npm test`, every run of `npm
 * run faults`). Settled RSS wanders by ±10 MB from chunk to chunk as the allocator keeps or returns pages
 * (measured: 160-178 MB over 64 sessions of one kind, V8's heap flat at 26 MB), so a half of three sessions
 * says nothing; its peak is still checked.
 */
export const RSS_MIN_SESSIONS = 40;
/**
 * How many RSS measurements a run's first half takes, where its chunks can be made that small without going
 * below SAMPLE_CHUNK sessions (a 20,000-session run: 3; a kind of a 3,000-session run: 2). With one, a
 * kind of `npm run faults` (~120 sessions, one chunk of 200 per half) failed now and then with V8's heap and
 * external memory flat: its one measurement had fallen in a trough (replays of one kind: 178.8 MB then 198.2,
 * 226.9 then 196.4, 179.3 then 236.7 MB, the previous build alike).
 */
export const RSS_SAMPLES = 3;
/** The smallest chunk the first half is cut into for RSS_SAMPLES (the short run's chunk size). */
const SAMPLE_CHUNK = 24;
/**
 * A run whose RSS ended above its first half's by more than RSS_TOLERANCE runs its second half's sessions again
 * (up to RSS_CONFIRM_ROUNDS times): RSS within this much of where the previous round ended is a plateau the allocator reached (replays of one kind over 500
 * sessions: 273.3–274.0 MB after every 50, V8's heap flat at 32–34 MB), more is a leak.
 */
export const RSS_PLATEAU = 0.05;
/** How many times at most the second half runs again before growth counts as a leak. */
export const RSS_CONFIRM_ROUNDS = 3;
/**
 * The peak RSS of a run may exceed the RSS before it by this much per session running at once: what one
 * session legitimately makes the gateway hold — a megabyte or two of requests in flight, each copied a few
 * times over, a message up to limits.maxResultBytes, socket buffers — with room to spare (measured: about
 * 19 MB per session for the heaviest clean kind, stall-stdin), far below what a gateway that holds a 512 MB
 * message whole takes.
 */
export const PEAK_ALLOWANCE_PER_SESSION = 24 * 2 ** 20;
/** How long the gateway gets to let go of everything once nothing runs (its idle timeout, children exiting). */
const QUIESCE_MS = 15_000;
/** What the warm-up runs before anything is measured: every code path a clean session takes, once or twice. */
const WARM_UP: readonly (readonly [FaultKind, Target])[] = [
  ...TARGET_NAMES.map((t): [FaultKind, Target] => ['none', t]),
  ['stall-stdin', 'stdio'],
  ['slow-reader', 'http'],
  ['init-burst', 'shared'],
];

/** RSS once idle and after a full GC, with the gateway's own view of its memory and which process it was. */
type Settled = { readonly pid: number; readonly rss: number; readonly memory: DebugSnapshot['memory'] };

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MB`;

export class FaultRunner {
  readonly tallies = new Map<TallyKey, Tally>();
  readonly #world: World;
  readonly #options: RunnerOptions;
  #baseline: DebugSnapshot | undefined;
  /** RSS after a full GC once the last run (or the warm-up) ended: what the next run's peak is measured from. */
  #baselineRss = 0;
  #attributions = 0;

  constructor(world: World, options: RunnerOptions) {
    this.#world = world;
    this.#options = options;
  }

  tally(key: TallyKey): Tally {
    let t = this.tallies.get(key);
    if (!t) this.tallies.set(key, (t = { run: 0, passed: 0, failed: 0, skipped: 0, leakChecks: 0, leakFailures: 0, memoryChecks: 0, memoryFailures: 0, peak: 0, byInvariant: {}, failures: [] }));
    return t;
  }

  /**
   * Sessions of kinds that fault nothing upstream, on every target, a few at a time (not counted: their
   * invariants are not checked), then the baseline: the counts once idle, and RSS after a full GC.
   */
  async warmUp(): Promise<void> {
    const started = Date.now();
    await this.#runUntallied(WARM_UP.map(([kind, target], i) => makePlan(0x5eed0000 + i, kind, [target])));
    this.#baseline = undefined;
    const settled = await this.#quiesce();
    if (settled.leaks.length > 0) throw new Error(`the gateway did not become idle after the warm-up: ${settled.leaks.join('; ')}`);
    this.#baseline = settled.snapshot;
    await this.#world.gateway().debug(true);
    this.#baselineRss = this.#world.gateway().rss();
    this.#options.log(`warm-up ${((Date.now() - started) / 1000).toFixed(1)} s; baseline: RSS ${mb(this.#baselineRss)}, ${settled.snapshot.timers} timers ${JSON.stringify(settled.snapshot.timersByDelay)}, ${settled.snapshot.metricSeries} metric series`);
  }

  /**
   * Run `items` chunk by chunk, then the memory checks, counted for `key`. In a run of at least
   * RSS_MIN_SESSIONS sessions, RSS is measured (after a full GC) after each chunk of the first half and at the
   * end: the first half's load grows the allocator as far as it goes, so the highest of its measurements is the level the run holds without leaking, and what the
   * second half adds above it is what its sessions left behind. (One measurement halfway is not enough: it
   * may fall in a trough of the allocator's wandering.)
   */
  async run(items: readonly Item[], key: TallyKey): Promise<void> {
    const before = this.#baselineRss;
    const peakMeasured = this.#world.gateway().resetPeak();
    const firstHalf: Settled[] = [];
    const half = Math.ceil(items.length / 2);
    if (items.length >= RSS_MIN_SESSIONS) {
      // RSS_SAMPLES measurements in the first half, unless its chunks would fall below SAMPLE_CHUNK sessions
      // (each chunk waits for its slowest session's timeouts: smaller ones would only lengthen the short run).
      await this.#runItems(items.slice(0, half), firstHalf, Math.min(this.#options.chunk, Math.max(SAMPLE_CHUNK, Math.ceil(half / RSS_SAMPLES))));
      await this.#runItems(items.slice(half));
    } else {
      // Too few sessions for RSS to be compared between halves: one run, so that the sessions' waits (a
      // stalled body's timeout, an idle session's expiry) overlap instead of coming twice.
      await this.#runItems(items);
    }
    await this.#memoryCheck(key, { before, peakMeasured, firstHalf, again: items.slice(half) });
  }

  /** Run items chunk by chunk, each followed by its leak check; `samples` collects a settled RSS after each. */
  async #runItems(items: readonly Item[], samples?: Settled[], size = this.#options.chunk): Promise<void> {
    let queue = [...items];
    while (queue.length > 0) {
      const chunk = queue.slice(0, size);
      const warnings = this.#world.gateway().complaints().total;
      const left = await this.#runChunk(chunk);
      queue = [...left, ...queue.slice(chunk.length)];
      if (await this.#world.revive()) {
        this.#options.log(`the gateway died; started again (restart ${this.#world.restarts})`);
        await this.warmUp();
        continue;
      }
      await this.#leakCheck(chunk.filter((i) => !left.includes(i)), warnings);
      if (samples && this.#world.gateway().alive()) samples.push(await this.#settled());
    }
  }

  /** Once idle, after a full GC: the gateway's RSS and memory, and which process it was. */
  async #settled(): Promise<Settled> {
    const gw = this.#world.gateway();
    await this.#quiesce();
    const { memory } = await gw.debug(true);
    return { pid: gw.pid, rss: gw.rss(), memory };
  }

  async #memoryCheck(key: TallyKey, run: { before: number; peakMeasured: boolean; firstHalf: readonly Settled[]; again: readonly Item[] }): Promise<void> {
    const gw = this.#world.gateway();
    if (!gw.alive()) return;
    const t = this.tally(key);
    const peak = run.peakMeasured ? gw.peakRss() : 0;
    t.peak = Math.max(t.peak, peak);
    const end = await this.#settled();
    this.#baselineRss = end.rss;
    const replay = `FAULT_SEED=${this.#options.seed}${key === 'mixed' ? '' : ` FAULT_KINDS=${key}`} npm run faults`;
    const fail = (invariant: Invariant, detail: string): void => this.#fail(t, { seed: this.#options.seed, kind: key, target: undefined, invariant, detail, replay });
    const failedBefore = t.failures.length;
    // Measurements of a process that has since died leave nothing to compare.
    const samples = run.firstHalf.filter((s) => s.pid === end.pid).map((s) => s.rss);
    const level = samples.length > 0 ? Math.max(...samples) : undefined;
    if (level !== undefined && end.rss > level * (1 + RSS_TOLERANCE)) {
      const growth = (((end.rss - level) / level) * 100).toFixed(1);
      const what = `RSS ${mb(end.rss)} at the end of the run (after a full GC), at most ${mb(level)} in its first half (+${growth}%; measured ${samples.map(mb).join(', ')}); V8 heap ${mb(end.memory.heapUsed)} of ${mb(end.memory.heapTotal)}, external ${mb(end.memory.external)}`;
      // A leak grows with sessions; the allocator's retention levels off (sometimes over a few hundred
      // sessions). The second half's sessions, run again, tell them apart: RSS that stays where the last round
      // ended is a plateau; RSS that grows every round is a leak.
      const seen: number[] = [];
      let last = end.rss;
      let plateau = false;
      for (let round = 0; round < RSS_CONFIRM_ROUNDS && !plateau; round++) {
        const after = await this.#again(run.again);
        if (after === undefined || after.pid !== end.pid) break;
        seen.push(after.rss);
        plateau = after.rss <= last * (1 + RSS_PLATEAU);
        last = after.rss;
      }
      const rounds = `the same ${run.again.length} sessions again, ${seen.length} time(s): ${seen.length > 0 ? seen.map(mb).join(', ') : 'the gateway died'}`;
      if (plateau) this.#options.log(`[${key}] ${what}; ${rounds} (a plateau, not a leak)`);
      else fail('rss', `${what}; ${rounds} (it grew every time)`);
    }
    const allowance = PEAK_ALLOWANCE_PER_SESSION * this.#options.concurrency;
    if (peak > run.before + allowance) fail('peak-rss', `RSS peaked at ${mb(peak)} during the run, ${mb(run.before)} before it (allowed: +${mb(allowance)}, for ${this.#options.concurrency} sessions at once)`);
    t.memoryChecks += 1;
    if (t.failures.length > failedBefore) t.memoryFailures += 1;
  }

  /** Run `items` again, untallied (their invariants were checked the first time), and settle: RSS after it. */
  async #again(items: readonly Item[]): Promise<Settled | undefined> {
    await this.#runUntallied(items.map((item) => makePlan(item.seed, item.kind, this.#options.targets)));
    return this.#world.gateway().alive() ? this.#settled() : undefined;
  }

  /** Run `plans` a few at a time without checking or counting them (warm-up, replays); stops if the gateway dies. */
  async #runUntallied(plans: readonly SessionPlan[]): Promise<void> {
    const queue = [...plans];
    const worker = async (): Promise<void> => {
      for (let plan = queue.shift(); plan !== undefined && this.#world.gateway().alive(); plan = queue.shift()) await runPlan(this.#world, plan);
    };
    await Promise.all(Array.from({ length: this.#options.concurrency }, worker));
  }

  /** Run a chunk until done or the gateway died; returns the items not run. */
  async #runChunk(chunk: readonly Item[]): Promise<Item[]> {
    const queue = [...chunk];
    const worker = async (): Promise<void> => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        if (!this.#world.gateway().alive()) {
          queue.unshift(item);
          return;
        }
        const t = this.tally(item.kind);
        if (t.failed >= this.#options.maxFailures) {
          t.skipped += 1;
          continue;
        }
        const { target, violations, notes } = await runAndCheck(this.#world, makePlan(item.seed, item.kind, this.#options.targets));
        t.run += 1;
        if (violations.length === 0) t.passed += 1;
        else t.failed += 1;
        for (const [i, v] of violations.entries()) this.#fail(t, { ...item, target, ...v, ...(i === 0 && notes.length > 0 && { context: notes }) });
      }
    };
    await Promise.all(Array.from({ length: this.#options.concurrency }, worker));
    return queue;
  }

  #fail(t: Tally, failure: Failure): void {
    t.byInvariant[failure.invariant] = (t.byInvariant[failure.invariant] ?? 0) + 1;
    if (t.failures.length < 40) t.failures.push(failure);
  }

  /**
   * Poll the debug endpoint until nothing is above the baseline (before there is one: until nothing holds a
   * session), or `ms` passed. A bounded poll: the gateway has no event to tell another process it let go.
   */
  async #quiesce(ms = QUIESCE_MS): Promise<{ snapshot: DebugSnapshot; leaks: string[] }> {
    const gw = this.#world.gateway();
    const end = Date.now() + ms;
    for (let wait = 25; ; wait = Math.min(wait * 2, 500)) {
      const snapshot = await gw.debug();
      const found = this.#baseline ? leaks(snapshot, this.#baseline, SHORT_TIMER_MS) : busy(snapshot, SHORT_TIMER_MS);
      if (found.length === 0 || Date.now() >= end) return { snapshot, leaks: found };
      await delay(wait);
    }
  }

  /**
   * Once the chunk's sessions ended: nothing above the baseline, and no listener leak warning printed while
   * they ran (Node prints one per emitter that got more than 10 listeners of one event; which session's it
   * was, the warning does not say, so it counts for the chunk).
   */
  async #leakCheck(chunk: readonly Item[], warningsBefore: number): Promise<void> {
    if (chunk.length === 0 || !this.#world.gateway().alive()) return;
    const kinds = [...new Set(chunk.map((i) => i.kind))];
    for (const k of kinds.length === 1 ? kinds : ['mixed' as const]) this.tally(k).leakChecks += 1;
    const waited = Date.now();
    const first = this.#baseline ? leaks(await this.#world.gateway().debug(), this.#baseline, SHORT_TIMER_MS) : [];
    const { snapshot, leaks: found } = await this.#quiesce();
    if (this.#options.trace) {
      const after = await this.#world.gateway().debug(true);
      const settling = `settled in ${Date.now() - waited} ms${first.length > 0 ? ` (from ${first.join('; ')})` : ''}`;
      this.#options.log(`after ${chunk.length} sessions (${kinds.join(', ')}), ${settling}: RSS ${mb(this.#world.gateway().rss())}, heap ${mb(after.memory.heapUsed)} of ${mb(after.memory.heapTotal)} ${JSON.stringify(after.memory.spaces)}, external ${mb(after.memory.external)}, timers ${after.timers}, series ${after.metricSeries}`);
    }
    const complaints = this.#world.gateway().complaints();
    const warned = complaints.last.slice(-Math.max(0, complaints.total - warningsBefore)).filter((l) => l.includes('MaxListenersExceededWarning'));
    if (complaints.total > warningsBefore && warned.length > 0) found.push(`${warned.length} listener leak warning(s) while the sessions ran: ${warned[0]!.slice(0, 300)}`);
    if (found.length === 0) return;
    // Counted once: later chunks are measured from here.
    this.#baseline = snapshot;
    const culprit = await this.#attribute(chunk);
    const seeds = chunk.map((i) => i.seed);
    // Not traced to one session: the kind's own chunk fails its kind; a chunk of the mixed run fails that run.
    const owners: TallyKey[] = culprit ? [culprit.kind] : kinds.length === 1 ? kinds : ['mixed'];
    for (const k of owners) {
      const t = this.tally(k);
      t.leakFailures += 1;
      const among = kinds.length > 1 ? ` (kinds ${kinds.join(', ')})` : '';
      const detail = culprit ? `${found.join('; ')} — reproduced by this session alone` : `${found.join('; ')} once the sessions ${seeds.join(' ')}${among} had ended (not traced to one session)`;
      // A kind's chunk is a run of consecutive seeds: replaying that many from its first is the same chunk.
      const replay = culprit ? undefined : kinds.length > 1 ? `FAULT_SEED=${this.#options.seed} npm run faults` : `FAULT_SEED=${seeds[0]} FAULT_KINDS=${k} FAULT_SESSIONS=${seeds.length} npm run faults`;
      this.#fail(t, { seed: culprit?.seed ?? seeds[0]!, kind: k, target: culprit ? makePlan(culprit.seed, culprit.kind, this.#options.targets).target : undefined, invariant: 'leak', detail, ...(replay && { replay }) });
    }
  }

  /** Replay a chunk's sessions one at a time until one leaks alone (within the attribution budget). */
  async #attribute(chunk: readonly Item[]): Promise<Item | undefined> {
    if (this.#attributions >= this.#options.attribute) return undefined;
    this.#attributions += 1;
    for (const item of chunk.slice(0, 12)) {
      const warnings = this.#world.gateway().complaints().total;
      await runPlan(this.#world, makePlan(item.seed, item.kind, this.#options.targets));
      if (!this.#world.gateway().alive()) return item;
      const { snapshot, leaks: found } = await this.#quiesce(8_000);
      this.#baseline = snapshot;
      const complaints = this.#world.gateway().complaints();
      const warned = complaints.total > warnings && complaints.last.slice(-(complaints.total - warnings)).some((l) => l.includes('MaxListenersExceededWarning'));
      if (found.length > 0 || warned) return item;
    }
    return undefined;
  }
}
