/**
 * A large block whose data spans many `data:` lines (one JSON-RPC message split between its tokens, each line
 * short, the whole past `sharedFrom`) comes back as its data's bytes, never decoded: the lines' values joined
 * with "\n", however the chunks fall. Blocks at or under `sharedFrom` are read as they always were.
 */
import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { split } from './split.js';

/** One JSON-RPC answer written over many data lines (a newline between tokens), with its other fields. */
function manyLines(values: readonly string[], eol: string): Buffer {
  return Buffer.from(`: note${eol}event: message${eol}id: 42${eol}${values.map((v) => `data: ${v}${eol}`).join('')}retry: 10${eol}${eol}`);
}

const values = Array.from({ length: 200 }, (_, i) => `{"row":${i},"text":"${'é'.repeat(40)}"},`);

describe('SseSplitter: a large block of many data lines', () => {
  it('gives the lines joined with "\\n" as bytes in shared memory, no decoded data, the other fields as usual', () => {
    const input = manyLines(values, '\n');
    const [event, ...rest] = split(input, [], { sharedFrom: 4096 });
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ event: 'message', id: '42', retry: 10, comments: [' note'], data: [], complete: true });
    expect(event!.raw.equals(input)).toBe(true);
    expect(event!.dataBytes!.toString('utf8')).toBe(values.join('\n'));
    expect(event!.dataBytes!.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('gives the same for a cut anywhere: inside a data: prefix, a value, a CRLF, between blocks', () => {
    const small = values.slice(0, 12).map((v) => v.slice(0, 20));
    for (const eol of ['\n', '\r\n', '\r']) {
      const block = manyLines(small, eol);
      const input = Buffer.concat([Buffer.from(`data: before${eol}${eol}`), block, Buffer.from(`data: a${eol}data: b${eol}${eol}`)]);
      for (let cut = 1; cut < input.length; cut++) {
        const got = split(input, [cut], { sharedFrom: 100 });
        const complete = got.filter((e) => e.complete);
        expect(complete.map((e) => e.dataBytes?.toString('utf8') ?? e.data), `${JSON.stringify(eol)} cut at ${cut}`).toEqual([['before'], small.join('\n'), ['a', 'b']]);
        expect(complete[1]).toMatchObject({ event: 'message', id: '42', retry: 10, data: [] });
        expect(Buffer.concat(got.map((e) => e.raw)).equals(input)).toBe(true);
      }
    }
  });

  it('gives the same for any number of cuts, with any line ends', () => {
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: fc.constantFrom('a', ':', ' ', 'é', '{', '"') }), eol), { minLength: 1, maxLength: 30 }), fc.array(fc.nat(600)), (lines, cuts) => {
        // The blank line that ends the block (after a CR, a LF would only complete its CRLF).
        const blank = lines.at(-1)![1] === '\r' ? '\n\n' : '\n';
        const input = Buffer.from(`${lines.map(([v, e]) => `data:${v}${e}`).join('')}${blank}`);
        const sharedFrom = Math.max(1, input.length - 2);
        const got = split(input, cuts, { sharedFrom }).filter((e) => e.complete);
        expect(got).toHaveLength(1);
        // One optional space after the colon is not part of the value.
        expect(got[0]!.dataBytes!.toString('utf8')).toBe(lines.map(([v]) => v.replace(/^ /, '')).join('\n'));
        expect(got[0]!.data).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a block at or under sharedFrom as it always did: its data lines decoded, no bytes', () => {
    const input = Buffer.from('data: {"a":\ndata: 1}\n\n');
    for (const sharedFrom of [input.length, input.length + 1, Infinity]) {
      const [event] = split(input, [3, 9], { sharedFrom });
      expect(event).toEqual({ raw: input, data: ['{"a":', '1}'], comments: [], complete: true });
    }
    expect(split(input, [3, 9], { sharedFrom: input.length - 1 })[0]!.dataBytes!.toString()).toBe('{"a":\n1}');
  });

  it('leaves a byte-order mark opening the stream out of the data; inside the stream it names no data field', () => {
    const block = manyLines(values.slice(0, 20), '\n');
    const input = Buffer.concat([Buffer.from('\ufeff'), block, Buffer.from('\ufeffdata: not data\ndata: x\n\n')]);
    for (const cut of [1, 2, 3, 8, block.length + 4]) {
      const got = split(input, [cut], { sharedFrom: 8 });
      expect(got.map((e) => e.dataBytes?.toString('utf8'))).toEqual([values.slice(0, 20).join('\n'), 'x']);
      expect(got[0]).toMatchObject({ id: '42', comments: [' note'] });
    }
  });

  it('keeps a one-line block past sharedFrom a view of its raw bytes, not a copy', () => {
    const [event] = split(Buffer.from(`id: 1\ndata: ${'x'.repeat(500)}\n\n`), [7, 300], { sharedFrom: 100 });
    expect(event!.dataBytes!.buffer).toBe(event!.raw.buffer);
    expect(event!.dataBytes!.toString()).toBe('x'.repeat(500));
  });
});
