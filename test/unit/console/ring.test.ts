/** The console's fixed-size counters: minutes turn over, an hour is kept, the rest is forgotten. */
import { describe, expect, it } from 'vitest';
import { KINDS, MINUTES, MinuteSeries, Reservoir, Ring, STEP_MS } from '../../../src/console/ring.js';

const T0 = 1_764_740_000_000 - (1_764_740_000_000 % STEP_MS);
const kind = (name: (typeof KINDS)[number]): number => KINDS.indexOf(name);

describe('MinuteSeries', () => {
  it('counts into the minute of each outcome, oldest first, the last bucket being now', () => {
    const s = new MinuteSeries();
    s.add(kind('extracted'), T0);
    s.add(kind('extracted'), T0 + 59_999);
    s.add(kind('invalid'), T0 + STEP_MS);
    const series = s.series(T0 + STEP_MS);
    expect(series.extracted).toHaveLength(MINUTES);
    expect(series.extracted.at(-2)).toBe(2);
    expect(series.extracted.at(-1)).toBe(0);
    expect(series.invalid.at(-1)).toBe(1);
    expect(series.shadow.every((n) => n === 0)).toBe(true);
  });

  it('shifts as time passes without outcomes, and forgets what is older than an hour', () => {
    const s = new MinuteSeries();
    s.add(kind('validated'), T0);
    expect(s.series(T0 + 10 * STEP_MS).validated.at(-11)).toBe(1);
    expect(s.series(T0 + MINUTES * STEP_MS).validated.every((n) => n === 0)).toBe(true);
    // A bucket reused an hour later starts from zero.
    s.add(kind('validated'), T0 + MINUTES * STEP_MS);
    expect(s.series(T0 + MINUTES * STEP_MS).validated.at(-1)).toBe(1);
    expect(s.series(T0 + MINUTES * STEP_MS).validated.reduce((a, b) => a + b)).toBe(1);
  });

  it('a clock that goes back counts into the newest bucket', () => {
    const s = new MinuteSeries();
    s.add(kind('shadow'), T0 + 5 * STEP_MS);
    s.add(kind('shadow'), T0);
    expect(s.series(T0 + 5 * STEP_MS).shadow.at(-1)).toBe(2);
  });
});

describe('Ring', () => {
  it('keeps the last N, newest first', () => {
    const r = new Ring<number>(3);
    expect(r.newestFirst()).toEqual([]);
    for (let i = 1; i <= 5; i++) r.push(i);
    expect(r.newestFirst()).toEqual([5, 4, 3]);
  });
});

describe('Reservoir', () => {
  it('gives p50 and p95 of the kept durations and counts every one', () => {
    const r = new Reservoir();
    expect(r.percentiles()).toBeNull();
    for (let i = 1; i <= 100; i++) r.add(i);
    expect(r.percentiles()).toEqual({ p50: 50, p95: 95, count: 100 });
    for (let i = 0; i < 1000; i++) r.add(1);
    expect(r.percentiles()).toEqual({ p50: 1, p95: 1, count: 1100 });
  });
});
