import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { EventIdWatch } from '../../../src/stream/event-ids.js';
import { split } from './split.js';

/** What an EventIdWatch says of `input` fed cut at `cuts`. */
function watched(input: Buffer, cuts: readonly number[] = []): boolean {
  const watch = new EventIdWatch();
  let start = 0;
  for (const cut of [...new Set(cuts)].filter((c) => c > 0 && c < input.length).sort((a, b) => a - b)) {
    watch.feed(input.subarray(start, cut));
    start = cut;
  }
  watch.feed(input.subarray(start));
  return watch.seen;
}

/** The same read by the gateway's SSE parser: a dispatched block (complete, with data) whose id is not empty. */
function parsed(input: Buffer): boolean {
  return split(input).some((e) => e.complete && e.data.length > 0 && e.id !== undefined && e.id !== '');
}

describe('EventIdWatch', () => {
  it.each([
    ['a priming event', 'id: s1-0\nretry: 100\ndata: \n\n', true],
    ['CRLF line ends', 'id: 7\r\ndata: {}\r\n\r\n', true],
    ['CR line ends', 'id: 7\rdata: {}\r\r', true],
    ['no space after the colon', 'id:7\ndata:x\n\n', true],
    ['a byte-order mark first', '\ufeffid: 7\ndata: x\n\n', true],
    ['`data` without a colon', 'id: 7\ndata\n\n', true],
    ['an id on a block without data (not dispatched)', 'id: 7\n\n', false],
    ['an empty id', 'id:\ndata: x\n\nid: \ndata: x\n\nid\ndata: x\n\n', false],
    ['a later empty id wins', 'id: 7\nid:\ndata: x\n\n', false],
    ['a block not ended yet', 'id: 7\ndata: x\n', false],
    ['`id:` inside data', 'data: {"x":"\\nid: 7"}\n\n', false],
    ['a field merely starting with id', 'idx: 7\ndata: x\n\n', false],
    ['a comment', ': id: 7\ndata: x\n\n', false],
  ])('%s: %s', (_name, input, seen) => {
    expect(watched(Buffer.from(input))).toBe(seen);
  });

  it('skips chunks of whole events without an id line, and still sees one in a later chunk', () => {
    const feed = (...chunks: string[]): boolean => {
      const watch = new EventIdWatch();
      for (const c of chunks) watch.feed(Buffer.from(c));
      return watch.seen;
    };
    expect(feed('event: message\ndata: {"id":1}\n\n', 'data: {"id":2}\n\n')).toBe(false);
    expect(feed('event: message\ndata: {"id":1}\n\n', 'id: 7\ndata: x\n\n')).toBe(true);
    expect(feed('data: x\n\n', 'event: message\nid: 7\ndata: x\n\n')).toBe(true);
    expect(feed('data: x\r\n\r\n', 'data: y\rid: 7\r\r')).toBe(true);
    // Not at rest after the first chunk (its block is under way): the id line that follows belongs to it.
    expect(feed('data: x\n', '\n')).toBe(false);
    expect(feed('data: x\n', 'id: 7\n\n')).toBe(true);
  });

  it('says what the SSE parser says, whatever the chunk boundaries', () => {
    const line = fc.constantFrom('id: 1', 'id:', 'id', 'id: ', 'data: x', 'data', 'data:', ': c', 'event: message', 'retry: 5', 'idx: 1', '');
    const end = fc.constantFrom('\n', '\r\n', '\r');
    const stream = fc.array(fc.tuple(line, end), { maxLength: 12 }).map((lines) => Buffer.from(lines.map(([l, e]) => l + e).join('')));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(80), { maxLength: 6 }), (input, cuts) => {
        expect(watched(input, cuts)).toBe(parsed(input));
      }),
    );
  });
});
