import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { HeldBytes } from '../../../src/stream/held.js';

const chunk = fc.uint8Array({ maxLength: 50 }).map((a) => Buffer.from(a));

describe('HeldBytes', () => {
  it('gives back exactly the bytes pushed, in order, whether kept as chunks, shared, or past the reservation', () => {
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 30 }), fc.oneof(fc.nat(100), fc.constant(Infinity)), fc.integer({ min: 1, max: 400 }), fc.nat(120), (chunks, spill, limit, n) => {
        const all = Buffer.concat(chunks);
        const held = new HeldBytes(spill, limit);
        for (const c of chunks) held.push(c);
        expect(held.length).toBe(all.length);
        expect(held.head(n).equals(all.subarray(0, n))).toBe(true);
        expect(held.tail(n).equals(all.subarray(Math.max(0, all.length - n)))).toBe(true);
        const copy = new HeldBytes(spill, limit);
        for (const c of chunks) copy.push(c);
        expect(Buffer.concat(copy.takePieces()).equals(all)).toBe(true);
        expect(copy.length).toBe(0);
        expect(held.take().equals(all)).toBe(true);
        expect(held.length).toBe(0);
        expect(held.take().length).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('pushCopy keeps its own copy of a chunk its owner reuses, shared or not', () => {
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 20 }), fc.nat(60), (chunks, spill) => {
        const held = new HeldBytes(spill, 1000);
        for (const c of chunks) {
          const owners = Buffer.from(c);
          held.pushCopy(owners);
          owners.fill(0x3f);
        }
        expect(held.take().equals(Buffer.concat(chunks))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('copies a message past the spill point into shared memory as it comes, a worker then takes it without a copy', () => {
    const held = new HeldBytes(10, 1 << 20);
    const first = Buffer.from('0123456789');
    held.push(first);
    expect(held.take()).toBe(first); // at the spill point: the chunk as it came
    held.push(first);
    held.push(Buffer.from('abc'));
    held.push(Buffer.from('def'));
    const bytes = held.take();
    expect(bytes.toString()).toBe('0123456789abcdef');
    expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('keeps chunks past its reservation as chunks after the shared bytes', () => {
    const held = new HeldBytes(2, 8);
    for (const c of ['abc', 'def', 'gh', 'ijk', 'l']) held.push(Buffer.from(c));
    const pieces = held.takePieces();
    expect(pieces[0]!.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(pieces.map(String)).toEqual(['abcdefgh', 'ijk', 'l']);
  });

  it('keeps chunks when a message is already past its reservation at the spill point, for that message only', () => {
    const held = new HeldBytes(2, 4);
    held.push(Buffer.from('abcdef'));
    held.push(Buffer.from('g'));
    const pieces = held.takePieces();
    expect(pieces.some((p) => p.buffer instanceof SharedArrayBuffer)).toBe(false);
    expect(Buffer.concat(pieces).toString()).toBe('abcdefg');
    // That message alone: the next one past the spill point is shared again (a stdio child's splitter holds one
    // HeldBytes for its whole life).
    held.push(Buffer.from('xyz'));
    expect(held.take().buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});
