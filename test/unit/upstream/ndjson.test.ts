import { describe, expect, it } from 'vitest';
import fc from '../../helpers/fast-check.js';
import { sniffResponseId } from '../../../src/jsonrpc/sniff.js';
import { createLineSplitter, type OverlongLine } from '../../../src/upstream/ndjson.js';

function collect(maxLineBytes: number, sampleBytes?: number, sharedFrom?: number, large?: Buffer[], reportEarly?: (head: string) => boolean) {
  const lines: (string | Buffer)[] = [];
  const overlong: OverlongLine[] = [];
  const onLargeLine = large && ((l: Buffer) => lines.push(large[large.push(l) - 1]!));
  const splitter = createLineSplitter({ maxLineBytes, onLine: (l) => lines.push(l), onOverlong: (o) => overlong.push(o), ...(sampleBytes !== undefined && { sampleBytes }), ...(sharedFrom !== undefined && { sharedFrom }), ...(onLargeLine && { onLargeLine }), ...(reportEarly && { reportEarly }) });
  return { lines, overlong, splitter };
}

describe('createLineSplitter', () => {
  it('splits on \\n and strips a trailing \\r', () => {
    const { lines, splitter } = collect(100);
    splitter.push(Buffer.from('{"a":1}\r\n{"b":2}\n\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('joins a line split across chunks, including a multi-byte character cut in half', () => {
    const { lines, splitter } = collect(100);
    const bytes = Buffer.from('{"city":"Zürich"}\n');
    splitter.push(bytes.subarray(0, 12));
    splitter.push(bytes.subarray(12));
    expect(lines).toEqual(['{"city":"Zürich"}']);
  });

  it('flushes an unterminated last line at end()', () => {
    const { lines, splitter } = collect(100);
    splitter.push(Buffer.from('one\ntwo'));
    expect(lines).toEqual(['one']);
    splitter.end();
    expect(lines).toEqual(['one', 'two']);
  });

  it('drops an over-long line, reports its size and ends, and keeps going', () => {
    const { lines, overlong, splitter } = collect(10, 4);
    splitter.push(Buffer.from('ok\n0123'));
    splitter.push(Buffer.from('456789abcdef'));
    splitter.push(Buffer.from('XYZ\r\nnext\n'));
    expect(lines).toEqual(['ok', 'next']);
    expect(overlong).toEqual([{ bytes: 19, head: '0123', tail: 'fXYZ', complete: true }]);
  });

  // Regression: a line that never ended was reported only at its terminator or at end(), so the request it
  // answers waited its whole timeoutMs although its head, over the bound, already named it.
  it('reports an over-long line as it passes the bound when its head says enough, and not again at its terminator', () => {
    const heads: string[] = [];
    const asked = (head: string): boolean => {
      heads.push(head);
      return head.startsWith('{');
    };
    const { lines, overlong, splitter } = collect(10, 4, undefined, undefined, asked);
    splitter.push(Buffer.from('ok\n{"id":7,'));
    expect(overlong).toEqual([]);
    splitter.push(Buffer.from('"result":"xxxxxxxx'));
    // No terminator yet: reported now, with the head and what had come.
    expect(heads).toEqual(['{"id']);
    expect(overlong).toEqual([{ bytes: 26, head: '{"id', tail: 'xxxx', complete: false }]);
    // The rest of the line, and what a child wrote after it before a newline, is discarded unreported.
    splitter.push(Buffer.from('y'.repeat(100)));
    splitter.push(Buffer.from('{"id":8,"result":1}\n{"id":9}\n'));
    splitter.end();
    expect(lines).toEqual(['ok', '{"id":9}']);
    expect(overlong).toHaveLength(1);
    expect(heads).toHaveLength(1);
  });

  it('waits for the terminator of an over-long line whose head does not say enough', () => {
    const { lines, overlong, splitter } = collect(10, 4, undefined, undefined, (head) => head.startsWith('{'));
    splitter.push(Buffer.from('[0123456789abc'));
    expect(overlong).toEqual([]);
    splitter.push(Buffer.from('def]\n{"a":1}\n'));
    expect(overlong).toEqual([{ bytes: 18, head: '[012', tail: 'def]', complete: true }]);
    expect(lines).toEqual(['{"a":1}']);
    // Unterminated, it is reported at end().
    splitter.push(Buffer.from('[0123456789abcdef'));
    expect(overlong).toHaveLength(1);
    splitter.end();
    expect(overlong.at(-1)).toEqual({ bytes: 17, head: '[012', tail: 'cdef', complete: true });
  });

  it('reports a line over the bound in one chunk, terminator included, once', () => {
    const { lines, overlong, splitter } = collect(5, 3, undefined, undefined, () => true);
    splitter.push(Buffer.from('abcdefgh\r\nok\n'));
    expect(overlong).toHaveLength(1);
    expect(overlong[0]).toMatchObject({ head: 'abc', complete: false });
    expect(lines).toEqual(['ok']);
  });

  it('accepts a line of exactly maxLineBytes, with or without \\r', () => {
    const { lines, overlong, splitter } = collect(5);
    splitter.push(Buffer.from('12345\r\n12345\n123456\n'));
    expect(lines).toEqual(['12345', '12345']);
    expect(overlong.map((o) => o.bytes)).toEqual([6]);
  });

  it('yields the same lines however the stream is chunked (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !/[\r\n]/.test(s) && s.length > 0), { maxLength: 10 }), fc.array(fc.nat(30), { maxLength: 10 }), (input, cuts) => {
        const bytes = Buffer.from(input.map((l) => `${l}\n`).join(''));
        const { lines, splitter } = collect(1000);
        let at = 0;
        for (const cut of cuts) {
          const next = Math.min(bytes.length, at + cut);
          splitter.push(bytes.subarray(at, next));
          at = next;
        }
        splitter.push(bytes.subarray(at));
        splitter.end();
        expect(lines).toEqual(input);
      }),
    );
  });

  it('gives the same lines and over-long reports when lines are gathered in shared memory (and when such lines come as bytes), chunks reused by their owner', () => {
    const lineText = fc.stringMatching(/^[a-z{}"é]{0,30}$/);
    const ending = fc.constantFrom('\n', '\r\n');
    fc.assert(
      fc.property(fc.array(fc.tuple(lineText, ending), { maxLength: 8 }), fc.array(fc.nat(25), { maxLength: 12 }), fc.integer({ min: 4, max: 24 }), fc.nat(12), (input, cuts, max, sharedFrom) => {
        const bytes = Buffer.from(input.map(([l, e]) => l + e).join(''));
        const run = (from: number, large?: Buffer[], reportEarly?: () => boolean) => {
          const got = collect(max, 3, from, large, reportEarly);
          let at = 0;
          for (const cut of [...cuts, bytes.length]) {
            const next = Math.min(bytes.length, at + cut);
            // The owner's buffer, overwritten once pushed: what the splitter keeps must be its own.
            const chunk = Buffer.from(bytes.subarray(at, next));
            got.splitter.push(chunk);
            chunk.fill(0x3f);
            at = next;
          }
          got.splitter.end();
          // Decoded only now: a line handed over as bytes must not have changed since.
          return { lines: got.lines.map((l) => l.toString()), overlong: got.overlong };
        };
        const kept = run(Infinity);
        expect(kept.lines).toEqual(input.map(([l]) => l).filter((l) => l.length > 0 && Buffer.byteLength(l) <= max));
        expect(run(sharedFrom)).toEqual(kept);
        // With onLargeLine: the same lines, those past sharedFrom as views of shared memory.
        const large: Buffer[] = [];
        expect(run(sharedFrom, large)).toEqual(kept);
        expect(large.map((l) => l.toString())).toEqual(kept.lines.filter((l) => Buffer.byteLength(l.endsWith('\r') ? l.slice(0, -1) : l) > sharedFrom));
        for (const l of large) expect(l.buffer).toBeInstanceOf(SharedArrayBuffer);
        // Reported early: the same lines, and each over-long line reported once, with the same head.
        const early = run(sharedFrom, undefined, () => true);
        expect(early.lines).toEqual(kept.lines);
        expect(early.overlong.map((o) => o.head)).toEqual(kept.overlong.map((o) => o.head));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('sniffResponseId', () => {
  it('finds the id at the end, as the SDKs serialise responses', () => {
    expect(sniffResponseId({ head: '{"result":{"content":[{"type":"text","text":"xx', tail: 'xx"}]},"jsonrpc":"2.0","id":7}' })).toBe(7);
  });
  it('finds a string id at the start', () => {
    expect(sniffResponseId({ head: '{"jsonrpc":"2.0","id":"a-1","result":{"x":"', tail: 'zzz"}}' })).toBe('a-1');
  });
  it('ignores requests and notifications', () => {
    expect(sniffResponseId({ head: '{"jsonrpc":"2.0","method":"notifications/message","params":{', tail: '"}}' })).toBeUndefined();
    expect(sniffResponseId({ head: '{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"', tail: '"}}' })).toBeUndefined();
  });
  it('gives up when no id is visible', () => {
    expect(sniffResponseId({ head: '{"result":{"a":"', tail: 'b"}}' })).toBeUndefined();
  });
});
