import { describe, expect, it } from 'vitest';
import { classifyMessage, type ClassifiedMessage } from '../../../src/jsonrpc/classify.js';
import { idKey, PendingTable, type Expectation, type Pending } from '../../../src/session/pending.js';

const ROUTE: Expectation = { kind: 'route' };
const NATIVE: Expectation = { kind: 'rewrite', request: { upstream: 'u', method: 'tools/call', tool: 't', revision: '2025-11-25' }, nativeOnly: true };
const STRICT: Expectation = { kind: 'rewrite', request: { upstream: 'u', method: 'tools/call', tool: 't', revision: '2025-11-25' } };

function entry(id: string | number, expect: Expectation = ROUTE, extra: Partial<Pending> = {}): Pending {
  return { id, method: 'tools/call', expect, started: 0, deadline: Infinity, answered: false, ...extra };
}

/** A clock the test moves. */
function clock(start = 1_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** True once `promise` has settled (checked after the microtasks queued so far ran). */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe('idKey', () => {
  it('keeps ids of different JSON types apart', () => {
    expect(idKey(1)).not.toBe(idKey('1'));
    expect(idKey('n1')).not.toBe(idKey(1));
    expect(idKey(1)).toBe(idKey(1));
  });
});

describe('PendingTable', () => {
  it('answers an entry once and forgets it (no retention): 1 and "1" are different requests', () => {
    const table = new PendingTable();
    table.add(entry(1));
    table.add(entry('1'));
    expect(table.size).toBe(2);
    expect(table.answer('1')?.id).toBe('1');
    expect(table.has(1)).toBe(true);
    expect(table.has('1')).toBe(false);
    expect(table.answer('1')).toBeUndefined();
    expect(table.peek(1)?.id).toBe(1);
    expect(table.size).toBe(1);
    expect(table.answer(1)?.id).toBe(1);
    expect(table.size).toBe(0);
    expect(table.empty).toBe(true);
  });

  it('re-adding an id replaces its entry without counting it twice', () => {
    const table = new PendingTable();
    table.add(entry(7, ROUTE, { method: 'a' }));
    table.add(entry(7, ROUTE, { method: 'b' }));
    expect(table.size).toBe(1);
    expect(table.peek(7)?.method).toBe('b');
    expect(table.open().map((p) => p.method)).toEqual(['b']);
  });

  describe('ids past 2^53: two that read as the same double are told apart by their literals', () => {
    const A = '12345678901234567890';
    const B = '12345678901234567891';
    const id = JSON.parse(A) as number;

    it('keeps both, and a lookup with the literal the answer holds finds its own request', () => {
      expect(JSON.parse(B)).toBe(id);
      const table = new PendingTable();
      const a = entry(id, ROUTE, { idLiteral: A, method: 'a' });
      const b = entry(id, ROUTE, { idLiteral: B, method: 'b' });
      table.add(a);
      table.add(b);
      expect(table.size).toBe(2);
      expect(table.has(id, B)).toBe(true);
      expect(table.answer(id, B)).toBe(b);
      expect(table.answer(id, A)).toBe(a);
      expect(table.size).toBe(0);
    });

    it('without the literal, or with one written rounded (a JavaScript upstream writes the parsed id back), the oldest', () => {
      const table = new PendingTable();
      const a = entry(id, ROUTE, { idLiteral: A });
      const b = entry(id, ROUTE, { idLiteral: B });
      table.add(a);
      table.add(b);
      expect(table.peek(id)).toBe(a);
      expect(table.answer(id, '12345678901234567000')).toBe(a);
      expect(table.answer(id)).toBe(b);
      expect(table.empty).toBe(true);
    });

    it('with answers kept for replays, a lookup without the literal finds the oldest request still waiting', () => {
      const table = new PendingTable({ retainAnsweredMs: 60_000 });
      const a = entry(id, ROUTE, { idLiteral: A });
      const b = entry(id, ROUTE, { idLiteral: B });
      table.add(a);
      table.add(b);
      expect(table.answer(id)).toBe(a);
      expect(table.answer(id)).toBe(b);
      expect(table.answer(id, A)).toBe(a);
      expect(table.size).toBe(0);
    });

    it('holds() and forget() act on the entry itself, never on another request under the same double', () => {
      const table = new PendingTable();
      const a = entry(id, ROUTE, { idLiteral: A });
      const b = entry(id, ROUTE, { idLiteral: B });
      table.add(a);
      table.add(b);
      expect(table.answer(id, A)).toBe(a);
      expect(table.holds(a)).toBe(false);
      expect(table.holds(b)).toBe(true);
      table.forget(a);
      expect(table.holds(b)).toBe(true);
      table.forget(b);
      expect(table.empty).toBe(true);
    });

    it('a request that repeats a literal replaces its entry, as any repeated id does', () => {
      const table = new PendingTable();
      table.add(entry(id, ROUTE, { idLiteral: A, method: 'a' }));
      table.add(entry(id, ROUTE, { idLiteral: A, method: 'again' }));
      expect(table.open().map((p) => p.method)).toEqual(['again']);
    });
  });

  it('evicts the oldest entry past max (its answer will pass through unchanged)', () => {
    const table = new PendingTable({ max: 2 });
    table.add(entry(1));
    table.add(entry(2));
    table.add(entry(3));
    expect(table.has(1)).toBe(false);
    expect(table.answer(1)).toBeUndefined();
    expect(table.open().map((p) => p.id)).toEqual([2, 3]);
    expect(table.size).toBe(2);
  });

  it('expires entries past ttlMs, counted from add', () => {
    const c = clock();
    const table = new PendingTable({ ttlMs: 100, now: c.now });
    table.add(entry(1));
    c.advance(100);
    expect(table.has(1)).toBe(true);
    c.advance(1);
    expect(table.peek(1)).toBeUndefined();
    expect(table.answer(1)).toBeUndefined();
    expect(table.size).toBe(0);
    expect(table.empty).toBe(true);
  });

  it('prune drops every expired entry and keeps the others', () => {
    const c = clock();
    const table = new PendingTable({ ttlMs: 100, now: c.now });
    table.add(entry(1));
    c.advance(60);
    table.add(entry(2));
    c.advance(60);
    table.prune();
    expect(table.size).toBe(1);
    expect(table.open().map((p) => p.id)).toEqual([2]);
  });

  it('an entry past its ttlMs is gone for open(), find(), only() and size too, not only for lookups by id', () => {
    // The header: "an entry past ttlMs is gone"; a stale entry must not own progress notifications (find/only).
    const c = clock();
    const table = new PendingTable({ ttlMs: 100, now: c.now });
    table.add(entry(1, ROUTE, { progressToken: 'p' }));
    c.advance(101);
    expect(table.find((p) => p.progressToken === 'p')).toBeUndefined();
    expect(table.single()).toBeUndefined();
    expect(table.open()).toEqual([]);
    expect(table.size).toBe(0);
  });

  describe('retainAnsweredMs (replays of an answer on a resumed stream)', () => {
    it('keeps an answered entry matchable for replays, not counted as open, then forgets it', () => {
      const c = clock();
      const table = new PendingTable({ retainAnsweredMs: 50, now: c.now });
      table.add(entry(1, STRICT));
      const first = table.answer(1);
      expect(first?.answered).toBe(true);
      expect(table.size).toBe(0);
      expect(table.empty).toBe(false);
      expect(table.has(1)).toBe(false);
      expect(table.open()).toEqual([]);
      expect(table.single()).toBeUndefined();
      c.advance(50);
      // The replay is matched to the same entry, and treated the same way.
      expect(table.answer(1)).toBe(first);
      c.advance(1);
      expect(table.answer(1)).toBeUndefined();
      expect(table.empty).toBe(true);
    });

    it('counts the retention from the answer, not from add', () => {
      const c = clock();
      const table = new PendingTable({ ttlMs: 100, retainAnsweredMs: 500, now: c.now });
      table.add(entry(1));
      c.advance(90);
      table.answer(1);
      c.advance(400);
      expect(table.peek(1)?.answered).toBe(true);
    });
  });

  it('find and only look at open entries, oldest first', () => {
    const table = new PendingTable({ retainAnsweredMs: 1000 });
    table.add(entry(1, ROUTE, { progressToken: 'a' }));
    table.add(entry(2, ROUTE, { progressToken: 'a' }));
    table.add(entry(3, ROUTE, { progressToken: 'b' }));
    expect(table.find((p) => p.progressToken === 'a')?.id).toBe(1);
    expect(table.single()).toBeUndefined();
    table.answer(1);
    expect(table.find((p) => p.progressToken === 'a')?.id).toBe(2);
    table.release(2);
    expect(table.single()?.id).toBe(3);
  });

  it('onlyNative is true only while every entry, answered ones included, is a nativeOnly rewrite', () => {
    const table = new PendingTable({ retainAnsweredMs: 1000 });
    expect(table.onlyNative).toBe(true);
    table.add(entry(1, NATIVE));
    expect(table.onlyNative).toBe(true);
    table.add(entry(2, STRICT));
    expect(table.onlyNative).toBe(false);
    // A retained answer can be replayed, and must be parsed again.
    table.answer(2);
    expect(table.onlyNative).toBe(false);
    table.release(2);
    expect(table.onlyNative).toBe(true);
    table.add(entry(3, ROUTE));
    expect(table.onlyNative).toBe(false);
    table.add(entry(3, NATIVE));
    expect(table.onlyNative).toBe(true);
    table.add(entry(4, { kind: 'initialize', requested: '2025-11-25' }));
    expect(table.onlyNative).toBe(false);
  });

  describe('settled()', () => {
    it('resolves at once when nothing is open', async () => {
      const table = new PendingTable({ retainAnsweredMs: 1000 });
      table.add(entry(1));
      table.answer(1);
      expect(await isSettled(table.settled())).toBe(true);
    });

    it('resolves when the last open entry is answered or released, not before', async () => {
      const table = new PendingTable({ retainAnsweredMs: 1000 });
      table.add(entry(1));
      table.add(entry(2));
      const settled = table.settled();
      table.answer(1);
      expect(await isSettled(settled)).toBe(false);
      table.release(2);
      expect(await isSettled(settled)).toBe(true);
    });

    it('counts an evicted or expired entry as no longer open', async () => {
      const c = clock();
      const evicting = new PendingTable({ max: 1, retainAnsweredMs: 1000 });
      evicting.add(entry(1));
      const first = evicting.settled();
      evicting.add(entry(2));
      expect(await isSettled(first)).toBe(false);
      evicting.answer(2);
      expect(await isSettled(first)).toBe(true);

      const expiring = new PendingTable({ ttlMs: 10, now: c.now });
      expiring.add(entry(1));
      const second = expiring.settled();
      c.advance(11);
      expiring.prune();
      expect(await isSettled(second)).toBe(true);
    });
  });

  it('tells onDropped of an entry evicted or expired unanswered, once it is gone, and of no other', () => {
    const c = clock();
    const table = new PendingTable({ max: 2, ttlMs: 100, now: c.now });
    const dropped: [string | number, string][] = [];
    table.onDropped = (pending, why) => {
      expect(table.peek(pending.id)).toBeUndefined();
      dropped.push([pending.id, why]);
    };
    table.add(entry(1));
    table.add(entry(2));
    table.add(entry(3));
    expect(dropped).toEqual([[1, 'evicted']]);
    table.answer(2);
    table.release(3);
    expect(dropped).toEqual([[1, 'evicted']]);
    table.add(entry(4));
    c.advance(101);
    table.prune();
    expect(dropped).toEqual([[1, 'evicted'], [4, 'expired']]);
    expect(table.size).toBe(0);
  });
});

describe('PendingTable.firstDuplicate', () => {
  const request = (id: unknown, idLiteral?: string): ClassifiedMessage => ({ ...classifyMessage({ jsonrpc: '2.0', id, method: 'ping' }), ...(idLiteral !== undefined && { idLiteral }) });
  const note = (): ClassifiedMessage => classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' });

  it('names a request whose id is in flight, or the second of two sharing an id in one body', () => {
    const table = new PendingTable();
    table.add(entry(1));
    expect(table.firstDuplicate([request(1)])).toMatchObject({ id: 1 });
    expect(table.firstDuplicate([request(2), note(), request(3)])).toBeUndefined();
    const second = request(2);
    expect(table.firstDuplicate([request(2), note(), second])).toBe(second);
    // 2 and "2" are different requests; notifications carry no id.
    expect(table.firstDuplicate([request(2), request('2'), note(), note()])).toBeUndefined();
  });

  it('keeps ids past 2^53 apart by how the client wrote them', () => {
    const table = new PendingTable();
    // Both parse to 2^53; their literals differ.
    const parsed = 2 ** 53;
    expect(table.firstDuplicate([request(parsed, '9007199254740993'), request(parsed, '9007199254740992')])).toBeUndefined();
    expect(table.firstDuplicate([request(parsed, '9007199254740993'), request(parsed, '9007199254740993')])).toMatchObject({ idLiteral: '9007199254740993' });
  });
});
