/**
 * The console's fixed-size counters: per-minute counts of each outcome kind over the last hour (one flat
 * typed array per tool, buckets reused as the minutes turn), a ring of the last N items, and a reservoir of
 * the last durations for p50/p95. Each is allocated once at its full size and never grows.
 */
import type { Percentiles, SeriesName } from './wire.js';

/** The series the console draws, in a fixed order. `validated` is outcome `native`; `shadow` any outcome in shadow mode. */
export const KINDS = ['extracted', 'validated', 'invalid', 'unparseable', 'shadow'] as const satisfies readonly SeriesName[];
export type Kind = (typeof KINDS)[number];

/** Buckets kept (one hour of minutes). */
export const MINUTES = 60;
/** One bucket (ms). */
export const STEP_MS = 60_000;

/** Counts per kind per minute over the last MINUTES minutes. */
export class MinuteSeries {
  readonly #counts = new Uint32Array(KINDS.length * MINUTES);
  /** The absolute minute (ms / STEP_MS) of the newest bucket written; -1 before the first. */
  #minute = -1;

  /** Count one `kind` at time `now` (ms). A clock that went back counts into the newest bucket. */
  add(kind: number, now: number): void {
    const minute = Math.max(Math.floor(now / STEP_MS), this.#minute);
    if (minute > this.#minute) this.#advance(minute);
    const slot = kind * MINUTES + (minute % MINUTES);
    this.#counts[slot] = (this.#counts[slot] ?? 0) + 1;
  }

  /** Zero the buckets of the minutes between the newest written and `minute` (at most all of them). */
  #advance(minute: number): void {
    const gap = this.#minute < 0 ? MINUTES : Math.min(minute - this.#minute, MINUTES);
    for (let i = 0; i < gap; i++) {
      const bucket = (minute - i) % MINUTES;
      for (let k = 0; k < KINDS.length; k++) this.#counts[k * MINUTES + bucket] = 0;
    }
    this.#minute = minute;
  }

  /** Each kind's counts for the MINUTES minutes ending with the one holding `now`, oldest first. */
  series(now: number): Record<Kind, number[]> {
    const last = Math.floor(now / STEP_MS);
    const out = {} as Record<Kind, number[]>;
    KINDS.forEach((kind, k) => {
      const values = new Array<number>(MINUTES).fill(0);
      for (let i = 0; i < MINUTES; i++) {
        const minute = last - (MINUTES - 1) + i;
        // Only minutes still held: not newer than the newest written, not older than an hour before it.
        if (minute > this.#minute || minute <= this.#minute - MINUTES || minute < 0) continue;
        values[i] = this.#counts[k * MINUTES + (minute % MINUTES)] ?? 0;
      }
      out[kind] = values;
    });
    return out;
  }
}

/** The last `size` items pushed. */
export class Ring<T> {
  readonly #items: (T | undefined)[];
  #next = 0;
  #count = 0;

  constructor(size: number) {
    this.#items = new Array<T | undefined>(size);
  }

  /** Add `item`; returns the one it pushed out, when the ring was full. */
  push(item: T): T | undefined {
    const out = this.#items[this.#next];
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.#items.length;
    this.#count = Math.min(this.#count + 1, this.#items.length);
    return out;
  }

  /** The items, newest first. */
  newestFirst(): T[] {
    const out: T[] = [];
    const size = this.#items.length;
    for (let i = 1; i <= this.#count; i++) {
      const item = this.#items[(this.#next - i + size) % size];
      if (item !== undefined) out.push(item);
    }
    return out;
  }
}

/** Durations kept per tool for the percentiles. */
export const RESERVOIR = 256;

/** The last RESERVOIR durations (ms). */
export class Reservoir {
  readonly #values = new Float64Array(RESERVOIR);
  #count = 0;

  add(ms: number): void {
    this.#values[this.#count % RESERVOIR] = ms;
    this.#count += 1;
  }

  /** p50 and p95 of the kept durations (nearest rank), or null before the first. */
  percentiles(): Percentiles | null {
    if (this.#count === 0) return null;
    const kept = this.#values.slice(0, Math.min(this.#count, RESERVOIR)).sort();
    const rank = (p: number): number => kept[Math.min(kept.length - 1, Math.ceil(p * kept.length) - 1)] ?? 0;
    const round = (ms: number): number => Math.round(ms * 1000) / 1000;
    return { p50: round(rank(0.5)), p95: round(rank(0.95)), count: this.#count };
  }
}
