import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { OFFLOAD_BYTES } from '../../../src/pipeline/offload/plan.js';
import { readJsonAnswer, readSseAnswer, type AnswerReaderOptions } from '../../../src/upstream/answer-reader.js';
import type { LinkDropped } from '../../../src/upstream/link.js';

/** `text` cut into chunks of `size` bytes, as a body stream. */
function body(text: string, size = 64 * 1024): Readable {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
}

function reader(bytes: boolean, maxBytes = 8 << 20): { got: (string | Buffer)[]; dropped: LinkDropped[]; options: AnswerReaderOptions } {
  const got: (string | Buffer)[] = [];
  const dropped: LinkDropped[] = [];
  const common = { maxBytes, dropped: (d: LinkDropped) => dropped.push(d), paused: () => undefined };
  const options: AnswerReaderOptions = bytes ? { ...common, bytes: true, message: (d) => got.push(d) } : { ...common, message: (d) => got.push(d) };
  return { got, dropped, options };
}

const large = `{"jsonrpc":"2.0","id":"big","result":{"content":[{"type":"text","text":"${'é'.repeat(OFFLOAD_BYTES)}"}]}}`;
const small = '{"jsonrpc":"2.0","id":1,"result":{}}';

describe('answer reader: a message past OFFLOAD_BYTES, for a reader that takes bytes', () => {
  it('a JSON body comes as its bytes in shared memory; a small one, or any for a reader of text, as text', async () => {
    for (const [text, bytes, shared] of [
      [large, true, true],
      [large, false, false],
      [small, true, false],
    ] as const) {
      const r = reader(bytes);
      await readJsonAnswer(body(text), r.options);
      expect(r.got).toHaveLength(1);
      const [data] = r.got;
      expect(Buffer.isBuffer(data)).toBe(shared);
      if (Buffer.isBuffer(data)) expect(data.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(data!.toString()).toBe(text);
    }
  });

  it('an SSE event\'s one data line comes as its bytes; the small events around it as text, in order', async () => {
    const r = reader(true);
    await readSseAnswer(body(`data: ${small}\n\nevent: message\ndata: ${large}\n\n: note\n\ndata: ${small}\n\n`, 10_000), r.options);
    expect(r.got.map((d) => (Buffer.isBuffer(d) ? d.length : d))).toEqual([small, Buffer.byteLength(large), small]);
    expect((r.got[1] as Buffer).toString('utf8')).toBe(large);
  });

  it('bytes are not checked here (their taker checks them); text nested too deeply is dropped here', async () => {
    const deep = `{"jsonrpc":"2.0","id":"d","result":{"x":${'['.repeat(OFFLOAD_BYTES)}${']'.repeat(OFFLOAD_BYTES)}}}`;
    const asBytes = reader(true);
    await readJsonAnswer(body(deep), asBytes.options);
    expect(asBytes.got).toHaveLength(1);
    const asText = reader(false);
    await readJsonAnswer(body(deep), asText.options);
    expect(asText.got).toEqual([]);
    expect(asText.dropped).toEqual([{ reason: 'depth', bytes: deep.length, id: 'd' }]);
  });

  it('a JSON body over maxBytes is dropped with the id read from its head, even when its first chunk is over', async () => {
    for (const chunk of [1 << 20, 4096]) {
      const r = reader(true, OFFLOAD_BYTES * 2);
      await readJsonAnswer(body(large, chunk), r.options);
      expect(r.got).toEqual([]);
      expect(r.dropped).toEqual([{ reason: 'size', bytes: Buffer.byteLength(large), id: 'big' }]);
    }
  });
});

describe('answer reader: where an SSE stream stands', () => {
  it('reports each complete event\'s id and retry; an empty data event (a priming event) is no message', async () => {
    const r = reader(false);
    const seen: [string | undefined, number | undefined][] = [];
    await readSseAnswer(body(`id: p\nretry: 200\ndata: \n\n: comment\n\nevent: message\nid: 1\ndata: ${small}\n\nid: 2\n`, 7), { ...r.options, position: (id, retry) => void seen.push([id, retry]) });
    expect(seen).toEqual([
      ['p', 200],
      ['1', undefined],
    ]);
    expect(r.got).toEqual([small]);
    expect(r.dropped).toEqual([]);
  });
});
