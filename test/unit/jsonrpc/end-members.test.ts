import { describe, expect, it } from 'vitest';
import { headMembers, tailMembers } from '../../../src/jsonrpc/end-members.js';

const big = `{"text":"${'y'.repeat(600)}","nested":[1,{"method":"no"}]}`;

describe('headMembers', () => {
  it('names the top-level members up to the first value that runs past the head, nested names left out', () => {
    expect(headMembers('{"jsonrpc":"2.0","id":7,"result":{"method":"x","content":[]},"params":null}')).toEqual(['jsonrpc', 'id', 'result', 'params']);
    expect(headMembers(`{ "jsonrpc" : "2.0" , "id" : -1.5e3 , "params" : ${big}`.slice(0, 80))).toEqual(['jsonrpc', 'id', 'params']);
    expect(headMembers('{"a":true,"b":null,"c":"x\\"}\\\\","method":"m"}')).toEqual(['a', 'b', 'c', 'method']);
  });

  it('decodes escaped names and stops at a scalar or string the head may have cut', () => {
    expect(headMembers('{"meth\\u006fd":"x"}')).toEqual(['method']);
    expect(headMembers('{"id":12')).toEqual(['id']);
    expect(headMembers('{"id":"ab')).toEqual(['id']);
    expect(headMembers('{"i')).toEqual([]);
  });

  it('names nothing for what is not an object', () => {
    expect(headMembers('[{"method":"x"}]')).toEqual([]);
    expect(headMembers('')).toEqual([]);
    expect(headMembers('"method":1}')).toEqual([]);
  });
});

describe('tailMembers', () => {
  it('names the top-level members after the last value that starts before the tail, last first', () => {
    const tail = `${big},"method":"roots/list","jsonrpc":"2.0","id":7}`.slice(-300);
    expect(tailMembers(tail)).toEqual(['id', 'jsonrpc', 'method']);
    expect(tailMembers('{"result":{"content":[{"type":"text","text":"{\\"method\\":1}"}]},"jsonrpc":"2.0","id":"k"}\n')).toEqual(['id', 'jsonrpc', 'result']);
    expect(tailMembers('{"a":[1,[2,{"b":"]"}]],"c":false}')).toEqual(['c', 'a']);
  });

  it('stops at a string whose opening quote the tail may have cut, or a backslash run that reaches its start', () => {
    expect(tailMembers('yyy","method":"x"}')).toEqual(['method']);
    expect(tailMembers('\\"yyy","method":"x"}')).toEqual(['method']);
    expect(tailMembers('yy\\"method\\":1}","id":1}')).toEqual(['id']);
    expect(tailMembers('1,"id":1}')).toEqual(['id']);
    expect(tailMembers('{}')).toEqual([]);
    expect(tailMembers('{"id":1')).toEqual([]);
  });
});
