import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { parseBlock, parseLargeBlock, SseSplitter, type SseEvent } from '../../../src/stream/sse.js';
import { split } from './split.js';
import { encodeEvent, eventLength, eventPieces, messageEvent, messageEventBytes } from '../../../src/stream/sse-encode.js';

/** What a client would see: dispatched blocks' fields. */
function fields(events: readonly SseEvent[]): unknown[] {
  return events.filter((e) => e.complete).map(({ raw: _raw, complete: _c, ...rest }) => rest);
}

describe('SseSplitter', () => {
  it('parses ids, event types, retry, comments, multi-line data and an empty priming event', () => {
    const input = Buffer.from(': hello\n\nid: 0\ndata:\n\nevent: message\nid: 1\nretry: 3000\ndata: {"a":\ndata: 1}\n\n');
    const events = split(input);
    expect(fields(events)).toEqual([
      { data: [], comments: [' hello'] },
      { id: '0', data: [''], comments: [] },
      { id: '1', event: 'message', retry: 3000, data: ['{"a":', '1}'], comments: [] },
    ]);
    expect(Buffer.concat(events.map((e) => e.raw)).equals(input)).toBe(true);
  });

  it('keeps \\r\\n and lone \\r line ends in the raw bytes of their own block', () => {
    const input = Buffer.from('id: 7\r\ndata: x\r\n\r\ndata: y\r\rdata: z\n\n');
    const events = split(input);
    expect(events.map((e) => e.raw.toString())).toEqual(['id: 7\r\ndata: x\r\n\r\n', 'data: y\r\r', 'data: z\n\n']);
    expect(fields(events).map((f) => (f as { data: string[] }).data)).toEqual([['x'], ['y'], ['z']]);
  });

  it('emits an event as soon as its blank line arrives, before the next chunk', () => {
    const splitter = new SseSplitter();
    expect(splitter.push(Buffer.from('data: a\n'))).toEqual([]);
    const [event] = splitter.push(Buffer.from('\ndata: b'));
    expect(event?.data).toEqual(['a']);
    expect(splitter.push(Buffer.from('\n\n'))[0]?.data).toEqual(['b']);
  });

  it('handles a \\r\\n split across chunks after a dispatch as a raw-only fragment', () => {
    const splitter = new SseSplitter();
    const first = splitter.push(Buffer.from('data: a\r\n\r'));
    expect(first.map((e) => [e.raw.toString(), e.complete])).toEqual([['data: a\r\n\r', true]]);
    const second = splitter.push(Buffer.from('\ndata: b\r\n\r\n'));
    expect(second.map((e) => [e.raw.toString(), e.complete])).toEqual([
      ['\n', false],
      ['data: b\r\n\r\n', true],
    ]);
  });

  it('splits a multi-byte character across chunks without corrupting it', () => {
    const input = Buffer.from('data: héllo ✓\n\n');
    for (let cut = 1; cut < input.length; cut++) expect(fields(split(input, [cut]))).toEqual([{ data: ['héllo ✓'], comments: [] }]);
  });

  it('returns an unterminated tail at end of stream as an incomplete block', () => {
    const events = split(Buffer.from('data: a\n\ndata: partial'));
    expect(events.map((e) => [e.raw.toString(), e.complete])).toEqual([
      ['data: a\n\n', true],
      ['data: partial', false],
    ]);
  });

  it('ignores a non-numeric retry and an id containing NUL', () => {
    expect(fields(split(Buffer.from('retry: 1s\nid: a\u0000b\ndata: q\n\n')))).toEqual([{ data: ['q'], comments: [] }]);
  });

  it('serializes a rewritten event keeping comments, event, id and retry', () => {
    const out = encodeEvent({ id: '5', event: 'message', retry: 10, comments: [' c'] }, '{"x":1}');
    expect(out.toString()).toBe(': c\nevent: message\nid: 5\nretry: 10\ndata: {"x":1}\n\n');
    expect(fields(split(out))).toEqual([{ id: '5', event: 'message', retry: 10, data: ['{"x":1}'], comments: [' c'] }]);
  });
});

// Streams built from arbitrary lines, line ends and blank lines, cut anywhere.
const lineEnd = fc.constantFrom('\n', '\r\n', '\r');
const line = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', ':', ' ', 'é', '{', '"') }).map((s) => `data:${s}`),
  fc.nat(99999).map((n) => `id: ${n}`),
  fc.constantFrom('event: message', 'retry: 500', ': keep-alive', 'data', 'data: ', ''),
);
const stream = fc.array(fc.tuple(line, lineEnd), { maxLength: 40 }).map((parts) => parts.map(([l, e]) => l + e).join(''));

/** Reference parser over the whole input at once (no chunking), per the WHATWG rules. */
function reference(text: string): { data: string[]; id?: string }[] {
  const out: { data: string[]; id?: string }[] = [];
  let cur: { data: string[]; id?: string; any: boolean } = { data: [], any: false };
  for (const l of text.split(/\r\n|\r|\n/).slice(0, -1)) {
    if (l === '') {
      out.push(cur.id === undefined ? { data: cur.data } : { data: cur.data, id: cur.id });
      cur = { data: [], any: false };
      continue;
    }
    if (l.startsWith(':')) continue;
    const i = l.indexOf(':');
    const name = i === -1 ? l : l.slice(0, i);
    let value = i === -1 ? '' : l.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') cur.data.push(value);
    if (name === 'id') cur.id = value;
  }
  return out;
}

describe('SseSplitter properties', () => {
  it('round-trips: the raw blocks concatenate to the input for any chunking', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(2000)), (text, cuts) => {
        const input = Buffer.from(text);
        expect(Buffer.concat(split(input, cuts).map((e) => e.raw)).equals(input)).toBe(true);
      }),
    );
  });

  it('parses the same blocks for any chunking as the whole-input reference parser', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(2000)), (text, cuts) => {
        const got = split(Buffer.from(text), cuts)
          .filter((e) => e.complete)
          .map((e) => (e.id === undefined ? { data: e.data } : { data: e.data, id: e.id }));
        expect(got).toEqual(reference(text));
      }),
    );
  });
});

/**
 * A block as its reader sees it: its data as the one string a client dispatches (the lines joined, or `dataBytes`
 * decoded; none without a data line); an incomplete block's fields are never read.
 */
function asRead(e: SseEvent): unknown {
  const { raw, dataBytes, data, ...rest } = e;
  if (!e.complete) return { raw: raw.toString('latin1'), complete: false };
  const joined = dataBytes ? dataBytes.toString('utf8') : data.length > 0 ? data.join('\n') : undefined;
  return { ...rest, raw: raw.toString('latin1'), data: joined };
}

describe('SseSplitter with sharedFrom (large blocks gathered in shared memory, their lines left undecoded)', () => {
  it('reads the same blocks as without it, the data of a block past the size as bytes (of its shared raw, for one line)', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(2000)), fc.integer({ min: 1, max: 40 }), (text, cuts, sharedFrom) => {
        const input = Buffer.from(text);
        const got = split(input, cuts, { sharedFrom, maxEventBytes: 1 << 16 });
        expect(Buffer.concat(got.map((e) => e.raw)).equals(input)).toBe(true);
        expect(got.map(asRead)).toEqual(split(input, cuts).map(asRead));
        for (const e of got) {
          if (e.complete && e.raw.length > sharedFrom) expect(e.raw.buffer).toBeInstanceOf(SharedArrayBuffer);
          const lines = e.raw.toString('utf8').split(/\r\n|\r|\n/).filter((l) => l === 'data' || l.startsWith('data:')).length;
          // Every large block with data has it as bytes; no small one does.
          expect(e.dataBytes !== undefined, e.raw.toString()).toBe(e.complete && e.raw.length > sharedFrom && lines > 0);
          if (e.dataBytes === undefined) continue;
          expect(e.data).toEqual([]);
          if (lines === 1) expect(e.dataBytes.buffer).toBe(e.raw.buffer);
          else expect(e.dataBytes.buffer).toBeInstanceOf(SharedArrayBuffer);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('leaves a 1 MB data line that came in a thousand chunks as bytes, and decodes the small lines around it', () => {
    const value = `{"jsonrpc":"2.0","id":7,"result":{"text":"${'é'.repeat(500_000)}"}}`;
    const input = Buffer.from(`: hi\n\nevent: message\nid: 9\ndata: ${value}\n\ndata: after\n\n`);
    const cuts = Array.from({ length: 1000 }, (_, i) => Math.floor((input.length * i) / 1000));
    const got = split(input, cuts, { sharedFrom: 256 * 1024, maxEventBytes: 4 << 20 });
    expect(got.map((e) => e.dataBytes?.length ?? e.data)).toEqual([[], Buffer.byteLength(value), ['after']]);
    expect(got[1]).toMatchObject({ event: 'message', id: '9', data: [], complete: true });
    expect(got[1]!.dataBytes!.toString('utf8')).toBe(value);
    expect(got[1]!.raw.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('gives a large block of two data lines as their values joined, as bytes', () => {
    const line = 'x'.repeat(300);
    const got = split(Buffer.from(`data: ${line}\ndata: ${line}\n\n`), [10, 200, 400], { sharedFrom: 100 });
    expect(got).toMatchObject([{ data: [], complete: true }]);
    expect(got[0]!.dataBytes!.toString()).toBe(`${line}\n${line}`);
  });
});

describe('parseLargeBlock (large blocks: the data kept as bytes)', () => {
  it('reads a block with one data line as parseBlock does, the data as a view of the block\'s bytes', () => {
    // (`id: 0\rdata:\n\n`: the CR before the data line and the LF after it are two line ends, never one CRLF.)
    for (const raw of ['data: {"a":1}\n\n', 'event: message\r\nid: 7\r\ndata:{"a":1}\r\n\r\n', ': note\rdata: x\rretry: 5\r\r', 'id: 1\ndata: é\n:c\n\n', 'id: 0\rdata:\n\n']) {
      const block = Buffer.from(raw);
      const got = parseLargeBlock(block)!;
      const { data, ...fields } = parseBlock(block);
      expect(got.event).toEqual({ ...fields, data: [] });
      expect(got.event.raw).toBe(block);
      expect(got.data.toString('utf8')).toBe(data[0]);
      expect(got.data.buffer).toBe(block.buffer);
    }
  });

  it('reads several data lines joined, a data field without a colon as an empty value, and a byte-order mark only at the start', () => {
    const cases: [string, string][] = [['data: a\ndata: b\n\n', 'a\nb'], ['data\ndata: b\n\n', '\nb'], ['\ufeffdata: a\n\n', 'a'], ['data: a\r\n:c\r\ndata:  b\r\n\r\n', 'a\n b']];
    for (const [raw, data] of cases) expect(parseLargeBlock(Buffer.from(raw))!.data.toString(), raw).toBe(data);
    // Inside a stream, a byte-order mark is part of the field's name: no data field.
    expect(parseLargeBlock(Buffer.from('\ufeffdata: a\n\n'), false)).toBeUndefined();
    expect(parseLargeBlock(Buffer.from('\ufeffdata: a\ndata: b\n\n'), false)!.data.toString()).toBe('b');
  });

  it('declines a block without data: none, or only fields that look like it', () => {
    for (const raw of ['event: x\n\n', ':data: a\n\n', 'datax: a\n\n', ' data: a\n\n']) expect(parseLargeBlock(Buffer.from(raw)), raw).toBeUndefined();
  });

  it('agrees with parseBlock on any block, and reads every block with a data line', () => {
    fc.assert(
      fc.property(stream, (text) => {
        for (const block of split(Buffer.from(text)).filter((e) => e.complete)) {
          const got = parseLargeBlock(block.raw);
          const { data, ...fields } = parseBlock(block.raw);
          expect(got === undefined).toBe(data.length === 0);
          if (got === undefined) continue;
          expect(got.event).toEqual({ ...fields, data: [] });
          expect(got.data.toString('utf8')).toEqual(data.join('\n'));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('eventPieces are encodeEvent\'s bytes in three pieces, the data not copied', () => {
    const data = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}');
    const pieces = eventPieces({ event: 'message', id: '4' }, data);
    expect(Buffer.concat(pieces).equals(encodeEvent({ event: 'message', id: '4' }, data))).toBe(true);
    expect(pieces[1]).toBe(data);
  });

  it('messageEventBytes: messageEvent\'s bytes, a large message (from 64 KiB) left in place as pieces', () => {
    const small = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(messageEventBytes(small, '0-1')).toEqual(messageEvent(small, '0-1'));
    expect(messageEventBytes('{}')).toEqual(messageEvent('{}'));
    const large = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${'x'.repeat(70_000)}"}}`);
    for (const id of ['2-7', undefined]) {
      const event = messageEventBytes(large, id);
      expect(Buffer.isBuffer(event)).toBe(false);
      const pieces = event as readonly Buffer[];
      expect(pieces[1]).toBe(large);
      expect(Buffer.concat(pieces).equals(messageEvent(large, id))).toBe(true);
      expect(eventLength(event)).toBe(messageEvent(large, id).length);
    }
  });
});
