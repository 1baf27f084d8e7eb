import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { BlockScanner, endsBlock } from '../../../src/stream/blocks.js';
import { SseSplitter } from '../../../src/stream/sse.js';

/** Where a scanner says blocks end, fed `chunks`: absolute offsets, stray LFs counted as their own pieces. */
function ends(chunks: readonly Buffer[]): number[] {
  const scanner = new BlockScanner();
  const out: number[] = [];
  let base = 0;
  let atStart = true;
  for (const chunk of chunks) {
    let i = 0;
    while (i < chunk.length) {
      if (atStart) {
        const stray = scanner.strayLf(chunk, i);
        if (stray > 0) {
          i += stray;
          out.push(base + i);
          continue;
        }
        atStart = false;
      }
      const end = scanner.end(chunk, i);
      if (end === -1) break;
      out.push(base + end);
      i = end;
      atStart = true;
    }
    base += chunk.length;
  }
  return out;
}

/** Where the splitter says blocks end (complete blocks and stray fragments alike). */
function splitterEnds(chunks: readonly Buffer[]): number[] {
  const splitter = new SseSplitter();
  const out: number[] = [];
  let at = 0;
  for (const chunk of chunks) for (const event of splitter.push(chunk)) out.push((at += event.raw.length));
  return out;
}

function cut(bytes: Buffer, points: readonly number[]): Buffer[] {
  const sorted = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of sorted) {
    if (p > from) out.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  if (from < bytes.length) out.push(bytes.subarray(from));
  return out;
}

describe('BlockScanner', () => {
  it('ends blocks at blank lines with \\n, \\r\\n and \\r line ends', () => {
    expect(ends([Buffer.from('data: a\n\nid: 1\r\ndata: b\r\n\r\n:c\r\r')])).toEqual([9, 27, 31]);
  });

  it('takes the LF of a CRLF whose CR ended a block in an earlier chunk as a piece of its own', () => {
    expect(ends([Buffer.from('data: a\r\r'), Buffer.from('\ndata: b\n\n')])).toEqual([9, 10, 19]);
  });

  it('finds the same block ends as the splitter, however the bytes are cut', () => {
    const line = fc.oneof(fc.constantFrom('data: x', 'id: 7', ': c', 'event: message', '', 'data: {"a":1}'), fc.string({ maxLength: 5 }).map((s) => s.replace(/[\r\n]/g, '')));
    const stream = fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 30 }).map((ls) => Buffer.from(ls.map(([l, e]) => l + e).join('')));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (bytes, points) => {
        const chunks = cut(bytes, points);
        expect(ends(chunks)).toEqual(splitterEnds(chunks));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('endsBlock', () => {
  it('is true exactly for chunks that end with a blank line, after which a scanner at rest is at rest again', () => {
    for (const text of ['data: a\n\n', 'data: a\r\n\r\n', ':c\n\n', 'x\n\r\n\n']) {
      const scanner = new BlockScanner();
      const chunk = Buffer.from(text);
      expect(endsBlock(chunk)).toBe(true);
      let i = 0;
      for (let end = scanner.end(chunk, i); end !== -1; end = scanner.end(chunk, i)) i = end;
      expect(scanner.atRest()).toBe(true);
    }
    for (const text of ['data: a\n', 'data: a\r\n', 'data: a\r\r', 'data']) expect(endsBlock(Buffer.from(text))).toBe(false);
  });
});
