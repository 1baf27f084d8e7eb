/**
 * A stdio session's bookkeeping (src/upstream/stdio-requests.ts) and the in-order runner its child's messages
 * go through (src/upstream/in-order.ts).
 */
import { describe, expect, it } from 'vitest';
import { InOrder } from '../../../src/upstream/in-order.js';
import { SessionRequests, type InFlightRequest } from '../../../src/upstream/stdio-requests.js';

const call = (tool: string): InFlightRequest => ({ upstream: 'u', method: 'tools/call', tool, revision: '2025-06-18', started: 0 });

describe('SessionRequests', () => {
  it('routes progress by token, else to the only request in flight, else nowhere', () => {
    const r = new SessionRequests();
    r.add(1, call('a'), 'tok-a');
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-a', progress: 1 } };
    const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
    expect(r.relatedTo(progress)).toBe(1);
    expect(r.relatedTo(log)).toBe(1);
    r.add(2, call('b'), undefined);
    expect(r.relatedTo(progress)).toBe(1);
    expect(r.relatedTo(log)).toBeUndefined();
    // Releasing a request forgets its token too.
    r.release(1);
    expect(r.relatedTo(progress)).toBe(2);
    expect(r.ids()).toEqual([2]);
  });

  it('settled() resolves when the last request is released, at once when none is in flight', async () => {
    const r = new SessionRequests();
    await r.settled();
    r.add('x', call('a'), undefined);
    r.add('y', call('b'), undefined);
    let settled = false;
    const done = r.settled().then(() => (settled = true));
    r.release('x');
    await Promise.resolve();
    expect(settled).toBe(false);
    r.release('y');
    await done;
    expect(settled).toBe(true);
  });

  it('remembers the tool behind a task', () => {
    const r = new SessionRequests();
    r.rememberTask('t1', 'slow');
    expect(r.toolOfTask('t1')).toBe('slow');
    expect(r.toolOfTask('t2')).toBeUndefined();
  });
});

describe('InOrder', () => {
  it('runs steps at once until one returns a promise; later steps wait for it, in order', async () => {
    const seen: string[] = [];
    const order = new InOrder(() => {});
    order.run(() => void seen.push('a'));
    expect(seen).toEqual(['a']);
    let release!: () => void;
    order.run(() => {
      seen.push('b start');
      return new Promise<void>((resolve) => (release = resolve)).then(() => void seen.push('b end'));
    });
    order.run(() => void seen.push('c'));
    await Promise.resolve();
    expect(seen).toEqual(['a', 'b start']);
    release();
    await new Promise<void>((resolve) => order.run(() => void resolve()));
    expect(seen).toEqual(['a', 'b start', 'b end', 'c']);
  });

  it('a step that fails is reported and does not stop the ones after it', async () => {
    const errors: unknown[] = [];
    const order = new InOrder((err) => errors.push(err));
    order.run(() => Promise.reject(new Error('boom')));
    const after = new Promise<void>((resolve) => order.run(() => void resolve()));
    await after;
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('boom');
  });
});
