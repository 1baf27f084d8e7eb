import { describe, expect, it } from 'vitest';
import { EventStore, parseEventId } from '../../../../src/http/front/events.js';
import type { EventBytes } from '../../../../src/stream/sse-encode.js';

const ev = (text: string): Buffer => Buffer.from(text);

/** Reserve an id on `stream` and store `text` under it; returns the id. */
function put(store: EventStore, stream: number, text: string): string {
  const { id, seq } = store.nextId(stream);
  store.store(stream, seq, ev(text));
  return id;
}

const texts = (events: readonly EventBytes[]): string[] => events.map((b) => (Buffer.isBuffer(b) ? b : Buffer.concat([...b])).toString());

describe('parseEventId', () => {
  it('parses <stream>-<seq>', () => {
    expect(parseEventId('0-0')).toEqual({ stream: 0, seq: 0 });
    expect(parseEventId('12-345')).toEqual({ stream: 12, seq: 345 });
  });

  it('refuses anything else', () => {
    for (const id of ['', '1', '1-', '-1', '1-2-3', 'a-1', '1-b', ' 1-2', '1-2 ', '1.5-2', '+1-2', '1234567890123456-1', 'f00d-1']) {
      expect(parseEventId(id), id).toBeUndefined();
    }
  });
});

describe('EventStore', () => {
  it('forgets a finished stream (its response ended cleanly), frees its room, keeps live ones', () => {
    const store = new EventStore({ maxEvents: 2 });
    put(store, 1, 'a1');
    put(store, 1, 'a2');
    store.forget(1); // not finished: kept
    expect(store.knows(1)).toBe(true);
    store.finish(1);
    store.forget(1);
    expect(store.knows(1)).toBe(false);
    put(store, 2, 'b1');
    put(store, 2, 'b2');
    expect(texts(store.after({ stream: 2, seq: -1 }))).toEqual(['b1', 'b2']);
  });

  it('keeps a large event as the pieces it was written in, counting all their bytes against maxBytes', () => {
    const store = new EventStore({ maxBytes: 10 });
    const pieces = [Buffer.from('data: '), Buffer.from('{}'), Buffer.from('\n\n')];
    store.store(1, store.nextId(1).seq, pieces);
    expect(store.after({ stream: 1, seq: -1 })).toEqual([pieces]);
    // 10 bytes held: one more byte and the oldest event goes.
    put(store, 1, 'x');
    expect(texts(store.after({ stream: 1, seq: -1 }))).toEqual(['x']);
  });

  it('numbers each stream on its own, from 0', () => {
    const store = new EventStore();
    expect(store.nextId(3)).toEqual({ id: '3-0', seq: 0 });
    expect(store.nextId(3)).toEqual({ id: '3-1', seq: 1 });
    expect(store.nextId(4)).toEqual({ id: '4-0', seq: 0 });
    for (const id of ['3-1', '4-0']) expect(parseEventId(id)).toBeDefined();
  });

  it('replays the events of a stream after a cursor, in order and byte for byte', () => {
    const store = new EventStore();
    put(store, 1, 'a');
    const second = put(store, 1, 'b');
    put(store, 2, 'other');
    put(store, 1, 'c');
    expect(texts(store.after(parseEventId(second)!))).toEqual(['c']);
    expect(texts(store.after({ stream: 1, seq: -1 }))).toEqual(['a', 'b', 'c']);
    expect(texts(store.after({ stream: 1, seq: 2 }))).toEqual([]);
    expect(store.after({ stream: 9, seq: 0 })).toEqual([]);
    expect(store.knows(1)).toBe(true);
    expect(store.knows(9)).toBe(false);
  });

  it('past maxEvents, drops the oldest stream\'s events first', () => {
    const store = new EventStore({ maxEvents: 3 });
    put(store, 1, 'a1');
    put(store, 2, 'b1');
    put(store, 1, 'a2');
    put(store, 2, 'b2');
    expect(texts(store.after({ stream: 1, seq: -1 }))).toEqual(['a2']);
    put(store, 2, 'b3');
    expect(texts(store.after({ stream: 1, seq: -1 }))).toEqual([]);
    expect(texts(store.after({ stream: 2, seq: -1 }))).toEqual(['b1', 'b2', 'b3']);
    // An unfinished stream is still known, with nothing left to replay.
    expect(store.knows(1)).toBe(true);
  });

  it('past maxBytes, drops the oldest events until the rest fit', () => {
    const store = new EventStore({ maxBytes: 10 });
    put(store, 1, '1234');
    put(store, 1, '5678');
    put(store, 2, 'abcd');
    expect(texts(store.after({ stream: 1, seq: -1 }))).toEqual(['5678']);
    put(store, 2, 'efghijkl');
    expect(texts(store.after({ stream: 1, seq: -1 }))).toEqual([]);
    expect(texts(store.after({ stream: 2, seq: -1 }))).toEqual(['efghijkl']);
  });

  it('forgets a finished stream once it has no events (at finish, or when its last one is evicted)', () => {
    const store = new EventStore({ maxEvents: 2 });
    store.nextId(1);
    store.finish(1);
    expect(store.knows(1)).toBe(false);

    put(store, 2, 'x');
    store.finish(2);
    // Finished but with events to replay: still known.
    expect(store.knows(2)).toBe(true);
    expect(texts(store.after({ stream: 2, seq: -1 }))).toEqual(['x']);
    put(store, 3, 'y');
    put(store, 3, 'z');
    expect(store.knows(2)).toBe(false);
    expect(texts(store.after({ stream: 3, seq: -1 }))).toEqual(['y', 'z']);
    // finish of a stream it never heard of is harmless.
    store.finish(42);
    expect(store.knows(42)).toBe(false);
  });

  it('counts what it evicted: the bounds hold over many events', () => {
    const store = new EventStore({ maxEvents: 5, maxBytes: 1000 });
    for (let i = 0; i < 100; i++) put(store, i % 3, `e${i}`);
    const kept = [0, 1, 2].flatMap((s) => texts(store.after({ stream: s, seq: -1 })));
    expect(kept).toHaveLength(5);
    const bytes = new EventStore({ maxBytes: 100 });
    for (let i = 0; i < 100; i++) put(bytes, i % 3, 'x'.repeat(30));
    expect([0, 1, 2].flatMap((s) => bytes.after({ stream: s, seq: -1 })).reduce((n, b) => n + b.length, 0)).toBe(90);
  });

  it('never evicts the event it was just given while older events are kept (the oldest stream may be the live GET stream)', () => {
    // Stream 0 is the standalone GET stream: it lives as long as the session, so it is soon the oldest.
    const store = new EventStore({ maxEvents: 3 });
    put(store, 0, 'g1');
    put(store, 1, 'a1');
    put(store, 1, 'a2');
    store.finish(1);
    put(store, 0, 'g2');
    put(store, 0, 'g3');
    // A client that got g1 and resumes the GET stream must be sent g2 and g3: older events go first.
    expect(texts(store.after({ stream: 0, seq: 0 }))).toEqual(['g2', 'g3']);
  });
});
