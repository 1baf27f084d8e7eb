import { describe, expect, it } from 'vitest';
import { arrayElements, elementSpans, messageTexts } from '../../../src/jsonrpc/batch-elements.js';
import { classifyBody } from '../../../src/jsonrpc/classify.js';

const BIG = '12345678901234567890';

describe('arrayElements', () => {
  it('splits a batch at its top-level commas, stepping over strings and nesting', () => {
    const a = `{"id":${BIG},"result":{"a":[1,2],"s":"x,]}\\"y"}}`;
    const b = '{"id":2,"result":{}}';
    expect(arrayElements(` [ ${a} ,\n${b} ] `)).toEqual([a, b]);
    expect(arrayElements('[]')).toEqual([]);
  });

  it('is undefined for anything but an array', () => {
    expect(arrayElements('{"id":1}')).toBeUndefined();
    expect(arrayElements('[1,2')).toBeUndefined();
    expect(arrayElements('["open]')).toBeUndefined();
  });
});

describe('elementSpans', () => {
  it('gives the same spans over text and over its UTF-8 bytes, each element as written', () => {
    // An escaped backslash ends a string; an escaped quote does not; multi-byte characters count as their bytes.
    const a = '{"jsonrpc":"2.0","method":"m","params":{"data":"é \\\\","q":"\\"],"}}';
    const b = '{"jsonrpc":"2.0","id":1,"result":{"text":"ünïcødé 😀"}}';
    const text = `[\t${a},  ${b}\r\n]`;
    const bytes = Buffer.from(text, 'utf8');
    const fromText = elementSpans(text)!;
    const fromBytes = elementSpans(bytes)!;
    expect(fromText.map(([s, e]) => text.slice(s, e))).toEqual([a, b]);
    expect(fromBytes.map(([s, e]) => bytes.subarray(s, e).toString('utf8'))).toEqual([a, b]);
    expect(fromBytes[1]![1] - fromBytes[1]![0]).toBe(Buffer.byteLength(b));
  });

  it('reads a bytes view where it starts (a Buffer over part of shared memory)', () => {
    const memory = Buffer.from(`xx[{"a":1},{"b":"2"}]yy`);
    const view = memory.subarray(2, memory.length - 2);
    expect(elementSpans(view)!.map(([s, e]) => view.subarray(s, e).toString())).toEqual(['{"a":1}', '{"b":"2"}']);
  });
});

describe('messageTexts', () => {
  it("gives each message of a client's body as the client wrote it", () => {
    const a = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"n":${BIG},"x":1e400}}}`;
    const b = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
    const batch = `[ ${a} ,\n${b} ]`;
    expect(messageTexts(batch, classifyBody(JSON.parse(batch)))).toEqual([a, b]);
    expect(messageTexts(a, classifyBody(JSON.parse(a)))).toEqual([a]);
    // An empty batch (one invalid message, which no route sends on) is written again.
    expect(messageTexts('[ ]', classifyBody([]))).toEqual(['[]']);
  });
});
