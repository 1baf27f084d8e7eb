import { describe, expect, it } from 'vitest';
import { endsOf, headNamesAnswer, locateResponseId, sniffHead, sniffResponseId, SNIFF_BYTES } from '../../../src/jsonrpc/sniff.js';

const sniff = (data: string | Buffer): string | number | undefined => sniffResponseId(endsOf(data));
const bulk = (n = 10_000): string => JSON.stringify({ content: [{ type: 'text', text: `{"id": 99, "x": "${'y'.repeat(n)}"}` }] });

describe('sniffResponseId', () => {
  it('reads an id that comes first (after jsonrpc) or first of all', () => {
    expect(sniff(`{"jsonrpc":"2.0","id":7,"result":${bulk()}}`)).toBe(7);
    expect(sniff(`{ "jsonrpc" : "2.0" , "id" : "abc" , "result" : ${bulk()} }`)).toBe('abc');
    expect(sniff(`{"id":-3,"jsonrpc":"2.0","result":${bulk()}}`)).toBe(-3);
  });

  it('reads an id that comes last, as the SDKs serialise responses', () => {
    expect(sniff(`{"result":${bulk()},"jsonrpc":"2.0","id":12}`)).toBe(12);
    expect(sniff(`{"result":${bulk()},"jsonrpc":"2.0","id":"k-1"}\n`)).toBe('k-1');
    expect(sniff(`{"error":{"code":-32000,"message":"${'m'.repeat(2000)}"},"jsonrpc":"2.0","id":1.5}`)).toBe(1.5);
  });

  it('keeps the type of the id and decodes escapes in a string id', () => {
    expect(sniff('{"jsonrpc":"2.0","id":"1","result":{}}')).toBe('1');
    expect(sniff(`{"result":${bulk()},"id":"a\\"b\\\\"}`)).toBe('a"b\\');
    expect(sniff(`{"jsonrpc":"2.0","id":"\\u00e9","result":{}}`)).toBe('é');
  });

  it('finds no id in requests and notifications, even with an id before the method', () => {
    expect(sniff(`{"jsonrpc":"2.0","method":"notifications/message","params":${bulk()}}`)).toBeUndefined();
    expect(sniff(`{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":${bulk()}}`)).toBeUndefined();
  });

  it('finds no id in a request whose method comes after its params, with the id at either end (regression)', () => {
    // A server→client request too long to keep, its id that of a pending client request: not that request's answer.
    expect(sniff(`{"params":${bulk()},"method":"roots/list","jsonrpc":"2.0","id":7}`)).toBeUndefined();
    expect(sniff(`{"jsonrpc":"2.0","id":7,"params":${bulk()},"method":"roots/list"}`)).toBeUndefined();
    expect(sniff(`{"jsonrpc":"2.0","id":7,"x":${bulk()},"method":"roots/list"}`)).toBeUndefined();
    expect(sniff(`{"jsonrpc":"2.0","id":7,"x":${bulk()},"meth\\u006fd":"roots/list"}`)).toBeUndefined();
    expect(sniffResponseId({ head: `{"params":{"pad":"${'p'.repeat(300)}`, tail: `${'p'.repeat(300)}"},"method":"roots/list","jsonrpc":"2.0","id":7}` })).toBeUndefined();
    // A method or params nested in an answer's result, at either end, is no request.
    expect(sniff(`{"jsonrpc":"2.0","id":7,"result":{"method":"GET","params":{}, "x":${bulk()}}}`)).toBe(7);
    expect(sniff(`{"result":{"x":${bulk()},"method":"GET"},"jsonrpc":"2.0","id":8}`)).toBe(8);
  });

  it('finds nothing where no id is at either end: a null id, an id nested in the result, not JSON', () => {
    expect(sniff(`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`)).toBeUndefined();
    expect(sniff(`{"jsonrpc":"2.0","result":{"item":{"id":5}}}`)).toBeUndefined();
    expect(sniff(`{"result":${bulk()}}`)).toBeUndefined();
    expect(sniff('[{"jsonrpc":"2.0","id":1,"result":{}}]')).toBeUndefined();
    expect(sniff('not json "id":1}')).toBeUndefined();
    expect(sniff('')).toBeUndefined();
  });

  it('reads ids from bytes as from text, a multi-byte character cut at either end included', () => {
    const text = `{"jsonrpc":"2.0","result":{"t":"${'é'.repeat(3000)}"},"id":"ü"}`;
    expect(sniff(Buffer.from(text))).toBe('ü');
    const head = `{"jsonrpc":"2.0","id":"ü","result":{"t":"${'é'.repeat(3000)}"}}`;
    expect(sniff(Buffer.from(head))).toBe('ü');
  });
});

describe('endsOf', () => {
  it('takes SNIFF_BYTES of each end of bytes and the same many characters of text', () => {
    const data = `${'a'.repeat(SNIFF_BYTES)}middle${'z'.repeat(SNIFF_BYTES)}`;
    expect(endsOf(data)).toEqual({ head: 'a'.repeat(SNIFF_BYTES), tail: 'z'.repeat(SNIFF_BYTES) });
    expect(endsOf(Buffer.from(data))).toEqual({ head: 'a'.repeat(SNIFF_BYTES), tail: 'z'.repeat(SNIFF_BYTES) });
  });

  it('gives short data whole at both ends', () => {
    expect(endsOf('{"id":1}')).toEqual({ head: '{"id":1}', tail: '{"id":1}' });
    expect(endsOf(Buffer.from('{"id":1}'))).toEqual({ head: '{"id":1}', tail: '{"id":1}' });
  });
});

describe('locateResponseId', () => {
  it('gives the literal and its offsets at the head, else at the tail', () => {
    const head = '{"jsonrpc":"2.0","id":"3~7","result":{}}';
    const at = locateResponseId(head);
    expect(at).toEqual({ literal: '"3~7"', start: head.indexOf('"3~7"'), end: head.indexOf('"3~7"') + 5 });
    const tail = `{"result":{"text":"${'x'.repeat(2000)}"},"jsonrpc":"2.0","id":12}`;
    const t = locateResponseId(tail)!;
    expect(tail.slice(t.start, t.end)).toBe('12');
  });

  it('finds nothing in a request or a message without an id at either end', () => {
    expect(locateResponseId('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toBeUndefined();
    expect(locateResponseId('{"method":"x","id":1}')).toBeUndefined();
    expect(locateResponseId(`{"result":{"id":1,"pad":"${'y'.repeat(1000)}"}}`)).toBeUndefined();
  });
});

describe('sniffHead and headNamesAnswer', () => {
  it('tell a request by any top-level method or params in the head, and an answer by its id and a result or error', () => {
    expect(sniffHead('{"jsonrpc":"2.0","id":7,"params":{"pad":"ppp')).toEqual({ kind: 'method' });
    expect(sniffHead('{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"zzz')).toEqual({ kind: 'id', id: 7 });
    expect(headNamesAnswer('{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"zzz')).toBe(true);
    expect(headNamesAnswer('{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"zzz')).toBe(true);
    // Regression: an id up front, then a value past the bound: the method may still come last.
    expect(headNamesAnswer('{"jsonrpc":"2.0","id":7,"params":{"pad":"ppp')).toBe(false);
    expect(headNamesAnswer('{"jsonrpc":"2.0","id":7,"x":{"pad":"ppp')).toBe(false);
    expect(headNamesAnswer('{"result":{"content":[{"type":"text","text":"zzz')).toBe(false);
  });
});
