/**
 * The in-order runner a gateway-owned session's upstream messages go through (src/session/in-order.ts).
 */
import { describe, expect, it } from 'vitest';
import { InOrder } from '../../../src/session/in-order.js';

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

  it('a step that throws synchronously is reported to its own handler, never to the caller (a data handler)', async () => {
    const errors: unknown[] = [];
    const failed: unknown[] = [];
    const order = new InOrder((err) => errors.push(err));
    expect(() => order.run(() => { throw new Error('sync'); }, (err) => failed.push(err))).not.toThrow();
    expect(() => order.run(() => { throw new Error('no handler'); })).not.toThrow();
    expect(failed.map((e) => (e as Error).message)).toEqual(['sync']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['no handler']);
    // Queued behind a step in progress, a throw goes to its handler too; a handler that throws, to the runner's.
    let release!: () => void;
    order.run(() => new Promise<void>((resolve) => (release = resolve)));
    order.run(() => { throw new Error('queued'); }, (err) => failed.push(err));
    order.run(() => { throw new Error('again'); }, () => { throw new Error('handler broke'); });
    release();
    await new Promise<void>((resolve) => order.run(() => void resolve()));
    expect(failed.map((e) => (e as Error).message)).toEqual(['sync', 'queued']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['no handler', 'handler broke']);
  });
});
