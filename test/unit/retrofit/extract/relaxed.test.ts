import { describe, expect, it } from 'vitest';
import { REPAIR_MAX_CHARS, extractRelaxed, pythonAsJson } from '../../../../src/retrofit/extract/relaxed.js';

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
  it('reads Python escapes as Python means them (repr writes xNN escapes for control characters)', () => {
    expect(extractRelaxed(String.raw`{'a': 'x\x00y', 'ansi': '\x1b[0m', 'e': '\U0001f600', 'u': '\u00e9', 'bell': '\a\v', 'oct': '\0\101', 'q': 'say "hi"', 'k': 'don\'t', 'odd': '\d'}`)).toEqual({
      a: 'x\u0000y',
      ansi: '\u001b[0m',
      e: '\u{1f600}',
      u: 'é',
      bell: '\u0007\u000b',
      oct: '\u0000A',
      q: 'say "hi"',
      k: "don't",
      odd: '\\d',
    });
  });
  it('keeps every number as its text spells it', () => {
    expect(pythonAsJson("{'n': 9007199254740993, 'f': 1.5e-7, 'neg': -0.0}")).toBe('{"n": 9007199254740993, "f": 1.5e-7, "neg": -0.0}');
  });
  it('reads a Python literal of any length in one pass, and gives jsonrepair no text longer than REPAIR_MAX_CHARS', () => {
    const big = `{${Array.from({ length: 50_000 }, (_, i) => `'k${i}': [True, None, 'v${i}']`).join(', ')}}`;
    expect(big.length).toBeGreaterThan(REPAIR_MAX_CHARS * 20);
    expect(Object.keys(extractRelaxed(big) as object)).toHaveLength(50_000);
    // Missing commas (jsonrepair's quadratic case): repaired when short, not tried when long.
    expect(extractRelaxed(`[${'None '.repeat(100)}]`)).toEqual(new Array(100).fill(null));
    expect(extractRelaxed(`[${'None '.repeat(REPAIR_MAX_CHARS / 5 + 1)}]`)).toBeUndefined();
  });
  it('leaves to jsonrepair what is no Python literal', () => {
    expect(pythonAsJson('{a: 1}')).toBeUndefined();
    expect(pythonAsJson("{'a': inf}")).toBeUndefined();
    expect(pythonAsJson("{'a': 'open")).toBeUndefined();
    expect(pythonAsJson("{'a': '\\x4'}")).toBeUndefined();
  });
});
