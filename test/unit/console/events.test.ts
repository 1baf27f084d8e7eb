/** The console's event streams: ticks only on change, at most once a tick, keep-alives, a bound, freed on close. */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConsoleEvents, KEEP_ALIVE_MS, MAX_STREAMS, TICK_MS } from '../../../src/http/console/events.js';

/** A response that keeps what was written. */
function fakeResponse(): ServerResponse & { chunks: string[]; status?: number } {
  const res = new EventEmitter() as EventEmitter & { chunks: string[]; status?: number; writableLength: number; destroyed: boolean; headersSent: boolean };
  Object.assign(res, {
    chunks: [] as string[],
    writableLength: 0,
    destroyed: false,
    headersSent: false,
    writeHead(status: number) {
      res.status = status;
      res.headersSent = true;
      return res;
    },
    write(chunk: Buffer | string) {
      res.chunks.push(chunk.toString());
      return true;
    },
    end(chunk?: Buffer | string) {
      if (chunk !== undefined) res.chunks.push(chunk.toString());
      res.emit('close');
      return res;
    },
  });
  return res as unknown as ServerResponse & { chunks: string[]; status?: number };
}

describe('ConsoleEvents', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends a tick at once, then only when the sequence moved, and keep-alives in between', () => {
    let seq = 0;
    const events = new ConsoleEvents({ seq: () => seq, now: () => 5 });
    const res = fakeResponse();
    events.open(res);
    expect(res.status).toBe(200);
    expect(res.chunks).toEqual([`event: tick\ndata: {"at":5,"seq":0}\n\n`]);
    vi.advanceTimersByTime(TICK_MS); // the first timer tick sends where things stand
    res.chunks.length = 0;
    vi.advanceTimersByTime(TICK_MS * 3);
    expect(res.chunks).toEqual([]);
    seq = 4;
    seq += 1; // two changes within one tick: one event
    vi.advanceTimersByTime(TICK_MS);
    expect(res.chunks).toEqual([`event: tick\ndata: {"at":5,"seq":5}\n\n`]);
    res.chunks.length = 0;
    vi.advanceTimersByTime(KEEP_ALIVE_MS);
    expect(res.chunks).toEqual([': keepalive\n\n']);
  });

  it('refuses a stream past the bound, and frees its timer when the last stream goes', () => {
    const events = new ConsoleEvents({ seq: () => 0 });
    const open = Array.from({ length: MAX_STREAMS }, () => fakeResponse());
    for (const res of open) events.open(res);
    const extra = fakeResponse();
    events.open(extra);
    expect(extra.status).toBe(503);
    expect(vi.getTimerCount()).toBe(1);
    for (const res of open) res.emit('close');
    expect(events.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('close() ends every stream and refuses new ones', () => {
    const events = new ConsoleEvents({ seq: () => 0 });
    const res = fakeResponse();
    events.open(res);
    events.close();
    expect(events.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    const late = fakeResponse();
    events.open(late);
    expect(late.status).toBe(503);
  });
});
