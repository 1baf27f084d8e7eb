import { describe, expect, it } from 'vitest';
import { PendingRequests } from '../../../src/session/pending.js';

const req = (tool: string) => ({ upstream: 'u', method: 'tools/call', tool, revision: '2025-11-25' });

describe('PendingRequests', () => {
  it('matches by upstream, session and id (of the same JSON type), once', () => {
    const p = new PendingRequests();
    p.add('u', 's1', 1, req('a'));
    p.add('u', 's1', '1', req('b'));
    p.add('u', undefined, 1, req('c'));
    expect(p.take('u', 's2', 1)).toBeUndefined();
    expect(p.take('other', 's1', 1)).toBeUndefined();
    expect(p.take('u', 's1', '1')?.tool).toBe('b');
    expect(p.take('u', 's1', 1)?.tool).toBe('a');
    expect(p.take('u', 's1', 1)).toBeUndefined();
    expect(p.take('u', undefined, 1)?.tool).toBe('c');
  });

  it('knows which sessions have something pending, so other streams skip parsing', () => {
    const p = new PendingRequests();
    expect(p.hasSession('u', 's')).toBe(false);
    p.add('u', 's', 7, req('a'));
    expect(p.hasSession('u', 's')).toBe(true);
    expect(p.hasSession('u', 't')).toBe(false);
    p.take('u', 's', 7);
    expect(p.hasSession('u', 's')).toBe(false);
  });

  it('forgets entries after ttlMs and beyond max', () => {
    let now = 0;
    const p = new PendingRequests({ max: 2, ttlMs: 1_000, now: () => now });
    p.add('u', 's', 1, req('a'));
    p.add('u', 's', 2, req('b'));
    p.add('u', 's', 3, req('c'));
    expect(p.take('u', 's', 1)).toBeUndefined();
    now = 10_000;
    expect(p.hasSession('u', 's')).toBe(false);
    expect(p.take('u', 's', 3)).toBeUndefined();
  });
});
