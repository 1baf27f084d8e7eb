import { describe, expect, it } from 'vitest';
import { extractFenced } from '../../../../src/retrofit/extract/fenced.js';

describe('fenced', () => {
  it('reads a json-labelled fence inside prose', () => {
    expect(extractFenced('Here you go:\n```json\n{"a": [1, 2]}\n```\nAnything else?')).toEqual({ a: [1, 2] });
  });
  it('reads the language from the first word of the info string, any case', () => {
    expect(extractFenced('```JSON title="result"\n{"a": 1}\n```')).toEqual({ a: 1 });
  });
  it('reads an unlabelled fence', () => {
    expect(extractFenced('```\n[1]\n```')).toEqual([1]);
  });
  it('skips fences in other languages and takes the next json one', () => {
    expect(extractFenced('```python\nprint({"x": 1})\n```\nand\n```json\n{"y": 2}\n```')).toEqual({ y: 2 });
  });
  it('yields nothing for an unclosed fence or a fence that is not JSON', () => {
    expect(extractFenced('```json\n{"a": 1}\n')).toBeUndefined();
    expect(extractFenced('```json\nnot json\n```')).toBeUndefined();
    expect(extractFenced('no fences at all')).toBeUndefined();
  });
});
