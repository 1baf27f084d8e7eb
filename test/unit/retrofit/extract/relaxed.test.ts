import { describe, expect, it } from 'vitest';
import { extractRelaxed } from '../../../../src/retrofit/extract/relaxed.js';

describe('relaxed', () => {
  it.each([
    ["{'name': 'x', 'ok': True, 'none': None, 'off': False}", { name: 'x', ok: true, none: null, off: false }],
    ['{"a": [1, 2,], "b": 3,}', { a: [1, 2], b: 3 }],
    ['// comment\n{a: 1 /* inline */}', { a: 1 }],
    ["Result: {'k': 'it\\'s'}", { k: "it's" }],
    ["[{'id': 1}, {'id': 2}]", [{ id: 1 }, { id: 2 }]],
  ])('%s', (text, expected) => {
    expect(extractRelaxed(text)).toEqual(expected);
  });
  it('refuses truncated text instead of completing it', () => {
    expect(extractRelaxed("{'a': 1, 'b': [2")).toBeUndefined();
  });
  it('refuses bracketed prose that jsonrepair would turn into strings', () => {
    expect(extractRelaxed('Error: file [x] not found')).toBeUndefined();
    expect(extractRelaxed('see {the docs} for details')).toBeUndefined();
    expect(extractRelaxed('[see docs]')).toBeUndefined();
  });
  it('refuses prose and two values', () => {
    expect(extractRelaxed('hello world')).toBeUndefined();
    expect(extractRelaxed("{'a': 1} {'b': 2}")).toBeUndefined();
  });
});
