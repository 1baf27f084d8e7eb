import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { sniffResponseId } from '../../../src/jsonrpc/sniff.js';
import { SseSplitter, type SseEvent } from '../../../src/stream/sse.js';

/** Feed `chunks` to a splitter with this bound; returns every block, end() included. */
function feed(max: number | undefined, chunks: readonly Buffer[]): SseEvent[] {
  const splitter = new SseSplitter(max === undefined ? {} : { maxEventBytes: max });
  const out = chunks.flatMap((c) => splitter.push(c));
  return [...out, ...splitter.end()];
}

/** `input` cut at `cuts`. */
function cut(input: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts)].filter((c) => c > 0 && c < input.length).sort((a, b) => a - b);
  return [0, ...at].map((start, i) => input.subarray(start, at[i] ?? input.length));
}

/** `input` in chunks of the given sizes, cycled. */
function sized(input: Buffer, sizes: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let start = 0, i = 0; start < input.length; i++) {
    const n = sizes[i % sizes.length]!;
    out.push(input.subarray(start, start + n));
    start += n;
  }
  return out;
}

/**
 * Blocks as a comparison sees them: the lone `\n` of a `\r\n` split across chunks (emitted on its own, see
 * SseEvent.complete) folded into the block it ends, so any chunking compares with the one-chunk reading.
 */
type Seen = { readonly raw: string; readonly fields: unknown } | { readonly overlong: number; readonly id: string | number | undefined };
function seen(events: readonly SseEvent[]): Seen[] {
  const out: Seen[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (!e.complete && e.raw.toString() === '\n' && last) {
      out[out.length - 1] = 'overlong' in last ? { ...last, overlong: last.overlong + 1 } : { ...last, raw: `${last.raw}\n` };
      continue;
    }
    if (e.overlong) out.push({ overlong: e.overlong.bytes, id: sniffResponseId(e.overlong) });
    else out.push({ raw: e.raw.toString(), fields: { id: e.id, event: e.event, retry: e.retry, data: e.data, comments: e.comments, complete: e.complete } });
  }
  return out;
}

/** What a bounded splitter must give for `input`: the unbounded reading, with each block over `max` reported overlong. */
function expected(input: Buffer, max: number, idOf: (raw: string) => string | number | undefined): Seen[] {
  return seen(feed(undefined, [input])).map((s) => ('raw' in s && Buffer.byteLength(s.raw) > max ? { overlong: Buffer.byteLength(s.raw), id: idOf(s.raw) } : s));
}

const TERMS = ['\n', '\r\n', '\r'] as const;

interface Spec {
  readonly comment: boolean;
  readonly type: boolean;
  readonly sseId?: number;
  readonly id: string | number;
  readonly idLast: boolean;
  readonly text: number;
  readonly term: (typeof TERMS)[number];
}

const json = (s: Pick<Spec, 'id' | 'idLast' | 'text'>): string => {
  const id = JSON.stringify(s.id);
  const result = `{"content":[{"type":"text","text":"${'x'.repeat(s.text)}"}]}`;
  return s.idLast ? `{"result":${result},"jsonrpc":"2.0","id":${id}}` : `{"jsonrpc":"2.0","id":${id},"result":${result}}`;
};

/** One SSE block the way servers write them: comment, event, id, then the data line, then a blank line. */
function frame(s: Spec): string {
  const lines = [...(s.comment ? [': c'] : []), ...(s.type ? ['event: message'] : []), ...(s.sseId === undefined ? [] : [`id: ${s.sseId}`]), `data: ${json(s)}`];
  return lines.map((l) => l + s.term).join('') + s.term;
}

const spec = (text: fc.Arbitrary<number>): fc.Arbitrary<Spec> =>
  fc.record(
    {
      comment: fc.boolean(),
      type: fc.boolean(),
      sseId: fc.nat({ max: 99_999 }),
      id: fc.oneof(fc.integer({ min: -1000, max: 1_000_000 }), fc.stringMatching(/^[a-z0-9-]{1,8}$/)),
      idLast: fc.boolean(),
      text,
      term: fc.constantFrom(...TERMS),
    },
    { requiredKeys: ['comment', 'type', 'id', 'idLast', 'text', 'term'] },
  );

/** The JSON-RPC id in a framed block (for the reference). */
const idIn = (raw: string): string | number | undefined => {
  const data = /(?:^|[\r\n])data: ?([^\r\n]*)/.exec(raw)?.[1];
  return data === undefined ? undefined : ((JSON.parse(data) as { id: string | number }).id);
};

describe('SseSplitter with maxEventBytes', () => {
  const MAX = 256;

  it('reports an event longer than the bound as one overlong block, the ends of its data kept', () => {
    const event = frame({ comment: true, type: true, sseId: 4, id: 7, idLast: true, text: 5000, term: '\n' });
    const next = 'event: message\nid: 5\ndata: {"jsonrpc":"2.0","id":8,"result":{}}\n\n';
    const events = feed(MAX, sized(Buffer.from(event + next), [100]));
    expect(events).toHaveLength(2);
    const [over, after] = events as [SseEvent, SseEvent];
    expect(over).toMatchObject({ data: [], comments: [], complete: true });
    expect(over.raw.length).toBe(0);
    expect(over.overlong?.bytes).toBe(Buffer.byteLength(event));
    expect(over.overlong?.head.startsWith('{"result":{"content":[{"type":"text","text":"xxx')).toBe(true);
    expect(over.overlong?.tail.endsWith('"jsonrpc":"2.0","id":7}')).toBe(true);
    expect(over.overlong?.tail.length).toBeLessThanOrEqual(512);
    expect(sniffResponseId(over.overlong!)).toBe(7);
    // What follows is split as ever, byte for byte.
    expect(after.raw.toString()).toBe(next);
    expect(after).toMatchObject({ id: '5', event: 'message', data: ['{"jsonrpc":"2.0","id":8,"result":{}}'], complete: true });
  });

  it.each([
    ['\\r\\n', '\r\n'],
    ['\\r', '\r'],
  ])('ends an over-long block at its blank line with %s line ends', (_name, term) => {
    const event = frame({ comment: false, type: true, id: 'abc', idLast: false, text: 3000, term: term as Spec['term'] });
    const next = `data: after${term}${term}`;
    const events = feed(MAX, sized(Buffer.from(event + next), [64]));
    expect(events.map((e) => [e.overlong?.bytes, e.raw.toString()])).toEqual([
      [Buffer.byteLength(event), ''],
      [undefined, next],
    ]);
    expect(sniffResponseId(events[0]!.overlong!)).toBe('abc');
    expect(events[1]!.data).toEqual(['after']);
  });

  it('keeps the \\n of a \\r\\n split right after an over-long block as a lone fragment, as the unbounded splitter does', () => {
    const event = frame({ comment: false, type: false, id: 1, idLast: false, text: 1000, term: '\r\n' });
    const input = Buffer.from(`${event}data: y\r\n\r\n`);
    const chunks = [...sized(input.subarray(0, event.length - 1), [200]), input.subarray(event.length - 1)];
    const events = feed(MAX, chunks);
    expect(events.map((e) => [e.overlong?.bytes, e.raw.toString(), e.complete])).toEqual([
      [event.length - 1, '', true],
      [undefined, '\n', false],
      [undefined, 'data: y\r\n\r\n', true],
    ]);
  });

  it('keeps an event of exactly the bound, whatever the chunk boundaries', () => {
    const at = (text: number): string => frame({ comment: false, type: false, id: 1, idLast: false, text, term: '\n' });
    const exact = at(MAX - Buffer.byteLength(at(0)));
    expect(Buffer.byteLength(exact)).toBe(MAX);
    for (const size of [1, 10, 100, MAX]) expect(feed(MAX, sized(Buffer.from(exact), [size])).map((e) => e.raw.toString())).toEqual([exact]);
  });

  it('reports an over-long event overlong when its last bytes arrive in the chunk that takes it over the bound', () => {
    // The bound is a property of the event, not of how TCP cut the stream: here the whole event is one chunk…
    const event = frame({ comment: false, type: false, id: 3, idLast: false, text: 1000, term: '\n' });
    expect(feed(MAX, [Buffer.from(`${event}data: y\n\n`)]).map((e) => e.overlong?.bytes)).toEqual([Buffer.byteLength(event), undefined]);
    // …and here one byte over the bound, fed a byte at a time: the blank line that ends it is the byte too many.
    const at = (text: number): string => frame({ comment: false, type: false, id: 1, idLast: false, text, term: '\n' });
    const over = at(MAX - Buffer.byteLength(at(0)) + 1);
    expect(feed(MAX, sized(Buffer.from(over), [1])).map((e) => e.overlong?.bytes)).toEqual([MAX + 1]);
  });

  it('keeps head and tail to the first data value when a field follows the data line', () => {
    const body = json({ id: 9, idLast: true, text: 5000 });
    const events = feed(MAX, sized(Buffer.from(`event: message\ndata: ${body}\nid: 41\n\n`), [128]));
    expect(events[0]!.overlong?.tail.endsWith('"id":9}')).toBe(true);
    expect(sniffResponseId(events[0]!.overlong!)).toBe(9);
  });

  it('splits a blank line right after an over-long block as its own block even when the discard began at a \\r', () => {
    const unbounded = feed(undefined, [Buffer.from(`data: ${'x'.repeat(300)}\r\n\n\ndata: y\n\n`)]).map((e) => e.raw.toString());
    expect(unbounded.slice(1)).toEqual(['\n', 'data: y\n\n']);
    const bounded = feed(MAX, [Buffer.from(`data: ${'x'.repeat(300)}\r`), Buffer.from('\n\n\ndata: y\n\n')]);
    expect(bounded.map((e) => (e.overlong ? 'overlong' : e.raw.toString()))).toEqual(['overlong', '\n', 'data: y\n\n']);
  });

  it('property: with chunks shorter than the margin, every block over the bound is overlong, its id sniffable, the rest byte-exact', () => {
    // Over-long events are longer than the bound plus a chunk, so some chunk ends inside each of them.
    const text = fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 400, max: 3000 }));
    fc.assert(
      fc.property(fc.array(spec(text), { minLength: 1, maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 10 }), (specs, sizes) => {
        const input = Buffer.from(specs.map(frame).join(''));
        expect(seen(feed(MAX, sized(input, sizes)))).toEqual(expected(input, MAX, idIn));
      }),
      { numRuns: 300 },
    );
  });

  it('property: every block over the bound is overlong, whatever the chunk boundaries', () => {
    fc.assert(
      fc.property(fc.array(spec(fc.integer({ min: 0, max: 1500 })), { minLength: 1, maxLength: 6 }), fc.array(fc.nat({ max: 10_000 }), { maxLength: 12 }), (specs, cuts) => {
        const input = Buffer.from(specs.map(frame).join(''));
        expect(seen(feed(MAX, cut(input, cuts)))).toEqual(expected(input, MAX, idIn));
      }),
      { numRuns: 300 },
    );
  });

  it('holds no more than about the bound plus a chunk, for a 20 MB event fed in 64 KiB chunks', () => {
    // A real gc, so what the splitter still references is measured, not what the collector did not reach yet.
    setFlagsFromString('--expose-gc');
    // Array buffers are freed by a background sweeper after a gc; on a loaded machine it may not have run when
    // memory is read. Sweep on this thread, so what is read after gc() is what is still referenced.
    setFlagsFromString('--no-concurrent-array-buffer-sweeping');
    const gc = runInNewContext('gc') as () => void;
    expect(typeof gc).toBe('function');
    const CHUNK = 64 * 1024;
    const TOTAL = 20 * 1024 * 1024;
    const head = '{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"';
    const tailText = '"}]}}';

    /** Feed the event (fresh chunks, dropped after use); returns the blocks and the ArrayBuffer growth held. */
    const run = (splitter: SseSplitter): { blocks: SseEvent[]; held: number } => {
      gc();
      const before = process.memoryUsage().arrayBuffers;
      const blocks = splitter.push(Buffer.from(`event: message\ndata: ${head}`));
      for (let sent = 0; sent < TOTAL; sent += CHUNK) blocks.push(...splitter.push(Buffer.alloc(CHUNK, 'x')));
      gc();
      const held = process.memoryUsage().arrayBuffers - before;
      blocks.push(...splitter.push(Buffer.from(`${tailText}\n\ndata: next\n\n`)));
      return { blocks, held };
    };

    const bounded = run(new SseSplitter({ maxEventBytes: 1024 * 1024 }));
    expect(bounded.held).toBeLessThan(4 * 1024 * 1024);
    expect(bounded.blocks.map((b) => b.raw.length)).toEqual([0, 'data: next\n\n'.length]);
    const over = bounded.blocks[0]!.overlong!;
    expect(over.bytes).toBe(Buffer.byteLength(`event: message\ndata: ${head}`) + TOTAL + Buffer.byteLength(`${tailText}\n\n`));
    expect(over.head.length + over.tail.length).toBeLessThan(8 * 1024);
    expect(sniffResponseId(over)).toBe(5);

    // The same measurement of an unbounded splitter does see the event held: the check above can fail.
    const unbounded = run(new SseSplitter());
    expect(unbounded.held).toBeGreaterThan(TOTAL * 0.9);
    expect(unbounded.blocks[0]!.raw.length).toBeGreaterThan(TOTAL);
  });

  it('without a bound, keeps a long event whole (the default is unchanged)', () => {
    const event = frame({ comment: false, type: true, id: 1, idLast: false, text: 2 * 1024 * 1024, term: '\r\n' });
    const events = feed(undefined, sized(Buffer.from(event), [64 * 1024]));
    expect(events).toHaveLength(1);
    expect(events[0]!.overlong).toBeUndefined();
    expect(events[0]!.raw.toString()).toBe(event);
  });
});

// An over-long event whose head names its answer's id is reported as it passes the bound (an upstream may never
// end it: the request would wait its whole timeout), once; one whose head does not is reported when it ends.
describe('SseSplitter: over-long events reported early', () => {
  const named = (head: string): boolean => head.startsWith('{"jsonrpc":"2.0","id":');
  const head = 'event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"x":"';

  it('reports a block that never ends as it passes the bound, and not again when it ends', () => {
    const splitter = new SseSplitter({ maxEventBytes: 1000, reportEarly: named });
    const first = splitter.push(Buffer.from(head + 'y'.repeat(2000)));
    expect(first).toHaveLength(1);
    expect(sniffResponseId({ head: first[0]!.overlong!.head, tail: first[0]!.overlong!.tail })).toBe(7);
    expect(splitter.push(Buffer.from('y'.repeat(5000)))).toEqual([]);
    // Its end only ends the discarding; the next block is split as usual.
    const after = splitter.push(Buffer.from('"}}\n\ndata: {"jsonrpc":"2.0","id":8,"result":{}}\n\n'));
    expect(after.map((e) => e.data)).toEqual([['{"jsonrpc":"2.0","id":8,"result":{}}']]);
    expect(splitter.end()).toEqual([]);
  });

  it('reports a block whose head does not name the id when it ends, as without the option', () => {
    const late = 'data: {"result":{"x":"' + 'y'.repeat(3000) + '"},"jsonrpc":"2.0","id":9}\n\n';
    const splitter = new SseSplitter({ maxEventBytes: 1000, reportEarly: named });
    const chunks = sized(Buffer.from(late), [700]);
    const out = chunks.flatMap((c) => splitter.push(c));
    expect(out).toHaveLength(1);
    expect(sniffResponseId({ head: out[0]!.overlong!.head, tail: out[0]!.overlong!.tail })).toBe(9);
    // All of it was seen: reported at its end.
    expect(out[0]!.overlong!.bytes).toBeGreaterThan(3000);
  });

  it('gives the same blocks as without the option, however the stream is cut (an over-long one with the same id)', () => {
    const input = Buffer.from(`${head}${'y'.repeat(1500)}"}}\n\ndata: short\n\n${head}${'z'.repeat(10)}"}}\n\n`);
    // An early report saw fewer of the block's bytes: compared by its id.
    const shape = (blocks: Seen[]): unknown[] => blocks.map((b) => ('overlong' in b ? { overlong: true, id: b.id } : b));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: input.length - 1 }), { maxLength: 6 }), (cuts) => {
        const plain = seen(feed(1000, cut(input, cuts)));
        const splitter = new SseSplitter({ maxEventBytes: 1000, reportEarly: named });
        const early = seen([...cut(input, cuts).flatMap((c) => splitter.push(c)), ...splitter.end()]);
        expect(shape(early)).toEqual(shape(plain));
      }),
    );
  });
});
