import { describe, expect, it } from 'vitest';
import { Lru } from '../../../src/session/lru.js';

describe('Lru', () => {
  it('evicts the least recently used entry past max, reporting removals', () => {
    const removed: string[] = [];
    const lru = new Lru<number>({ max: 2, onRemove: (k) => void removed.push(k) });
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(removed).toEqual(['b']);
    expect(lru.size).toBe(2);
  });

  it('expires entries after ttlMs, counted from set', () => {
    let now = 1_000;
    const lru = new Lru<string>({ max: 10, ttlMs: 100, now: () => now });
    lru.set('k', 'v');
    now += 100;
    expect(lru.get('k')).toBe('v');
    now += 1;
    expect(lru.has('k')).toBe(false);
    expect(lru.size).toBe(0);
  });

  it('prune drops every expired entry; delete reports whether something was there', () => {
    let now = 0;
    const lru = new Lru<number>({ max: 10, ttlMs: 10, now: () => now });
    lru.set('old', 1);
    now = 5;
    lru.set('new', 2);
    now = 12;
    lru.prune();
    expect(lru.size).toBe(1);
    expect(lru.delete('new')).toBe(true);
    expect(lru.delete('new')).toBe(false);
  });
});
