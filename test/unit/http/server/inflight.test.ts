import { afterEach, describe, expect, it, vi } from 'vitest';
import { InFlight } from '../../../../src/http/server/inflight.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('InFlight', () => {
  it('aborts long-lived streams at once and resolves as soon as ordinary requests finish', async () => {
    const inflight = new InFlight();
    const stream = new AbortController();
    const request = new AbortController();
    const streamDone = inflight.start(stream, true);
    const finish = inflight.start(request, false);
    const drained = inflight.drain(10_000);
    expect(stream.signal.aborted).toBe(true);
    expect(request.signal.aborted).toBe(false);
    streamDone.end(); // its handler notices the abort and ends
    finish.end();
    await drained;
    expect(request.signal.aborted).toBe(false);
    expect(inflight.size).toBe(0);
  });

  it('aborts what is still running when the grace period ends', async () => {
    vi.useFakeTimers();
    const inflight = new InFlight();
    const slow = new AbortController();
    inflight.start(slow, false);
    const drained = inflight.drain(10_000);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(slow.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await drained;
    expect(slow.signal.aborted).toBe(true);
  });

  it('aborts long-lived streams that start while closing', () => {
    const inflight = new InFlight();
    void inflight.drain(0);
    const late = new AbortController();
    inflight.start(late, true);
    expect(late.signal.aborted).toBe(true);
  });

  it('ends each exchange once, from anywhere in the list, and resolves a drain when the last ends', async () => {
    const inflight = new InFlight();
    const all = Array.from({ length: 5 }, () => inflight.start(new AbortController(), false));
    expect(inflight.size).toBe(5);
    all[2]!.end();
    all[2]!.end();
    all[4]!.end();
    all[0]!.end();
    expect(inflight.size).toBe(2);
    const drained = inflight.drain(10_000);
    all[1]!.end();
    expect(inflight.size).toBe(1);
    all[3]!.end();
    await drained;
    expect(inflight.size).toBe(0);
    for (const t of all) expect(t.controller).toBeInstanceOf(AbortController);
  });
});
