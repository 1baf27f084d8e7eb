import { describe, expect, it } from 'vitest';
import { extractJson } from '../../../../src/retrofit/extract/json.js';
import { extractFenced } from '../../../../src/retrofit/extract/fenced.js';
import { extractEmbedded } from '../../../../src/retrofit/extract/embedded.js';
import { extractBlocks } from '../../../../src/retrofit/extract/blocks.js';
import { extractRelaxed } from '../../../../src/retrofit/extract/relaxed.js';
import { extractScalars, wantsScalar } from '../../../../src/retrofit/extract/scalar.js';
import { extractYaml } from '../../../../src/retrofit/extract/yaml.js';
import { extractRegex } from '../../../../src/retrofit/extract/regex.js';
import { topLevelSpans } from '../../../../src/retrofit/extract/spans.js';

describe('json', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['  \n[1, 2]\n', [1, 2]],
    ['"text"', 'text'],
    ['42', 42],
    ['', undefined],
    ['{"a":1', undefined],
    ['hello', undefined],
  ])('%j → %j', (text, expected) => {
    expect(extractJson(text)).toEqual(expected);
  });
});

describe('fenced', () => {
  it('reads a json-labelled fence inside prose', () => {
    expect(extractFenced('Here you go:\n```json\n{"a": [1, 2]}\n```\nAnything else?')).toEqual({ a: [1, 2] });
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

describe('embedded', () => {
  it.each([
    ['The weather in Paris: {"temp": 21, "sky": "clear"}. Enjoy!', { temp: 21, sky: 'clear' }],
    ['Found 3 items: [1, 2, 3]', [1, 2, 3]],
    ['See {this note} — result: {"ok": true}', { ok: true }],
    ['It\'s "quoted" prose then {"s": "a } inside [ a string"}', { s: 'a } inside [ a string' }],
    ['{"escaped": "quote \\" and } brace"} done', { escaped: 'quote " and } brace' }],
  ])('%s', (text, expected) => {
    expect(extractEmbedded(text)).toEqual(expected);
  });
  it('yields nothing when prose holds two JSON values (ambiguous)', () => {
    expect(extractEmbedded('first {"a": 1} then {"b": 2}')).toBeUndefined();
  });
  it('yields nothing for truncated JSON, not its inner pieces', () => {
    expect(extractEmbedded('Result: {"a": [1, 2], "b": "trunc')).toBeUndefined();
    expect(extractEmbedded('Result: {"a": [1, 2], "b": 3')).toBeUndefined();
  });
  it('recovers after a mismatched closer', () => {
    expect(extractEmbedded('oops [ } then {"a": 1}')).toEqual({ a: 1 });
  });
});

describe('spans', () => {
  it('are linear on deeply unbalanced input', () => {
    const text = '['.repeat(200_000) + '{"a":1}';
    expect(topLevelSpans(text)).toEqual([]);
  });
  it('respects the limit', () => {
    expect(topLevelSpans('{} {} {}', '"', 2)).toHaveLength(2);
  });
});

describe('blocks', () => {
  it('turns several JSON blocks into an array', () => {
    expect(extractBlocks(['{"a":1}', ' {"a":2} ', '3'])).toEqual([{ a: 1 }, { a: 2 }, 3]);
  });
  it('needs at least two blocks, all JSON', () => {
    expect(extractBlocks(['{"a":1}'])).toBeUndefined();
    expect(extractBlocks(['{"a":1}', 'prose'])).toBeUndefined();
    expect(extractBlocks(['{"a":1}', ''])).toBeUndefined();
  });
});

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
  it('refuses prose and two values', () => {
    expect(extractRelaxed('hello world')).toBeUndefined();
    expect(extractRelaxed("{'a': 1} {'b': 2}")).toBeUndefined();
  });
});

describe('scalar', () => {
  it('knows when a schema wants a scalar', () => {
    expect(wantsScalar({ type: 'integer' })).toBe(true);
    expect(wantsScalar({ type: ['string', 'null'] })).toBe(true);
    expect(wantsScalar({ anyOf: [{ type: 'object' }, { type: 'number' }] })).toBe(true);
    expect(wantsScalar({ enum: ['a', 'b'] })).toBe(true);
    expect(wantsScalar({ type: 'object' })).toBe(false);
    expect(wantsScalar({ type: 'array' })).toBe(false);
    expect(wantsScalar(true)).toBe(true);
    expect(wantsScalar({ description: 'anything' })).toBe(true);
    expect(wantsScalar({ $defs: { n: { type: 'integer' } }, $ref: '#/$defs/n' })).toBe(true);
    expect(wantsScalar({ $defs: { o: { type: 'object' } }, $ref: '#/$defs/o' })).toBe(false);
    expect(wantsScalar({ properties: { a: {} } })).toBe(false);
  });
  it.each([
    [' 17\n', [17, '17', ' 17\n']],
    ['true', [true, 'true']],
    ['None', [null, 'None']],
    ['-3.5e2', [-350, '-3.5e2']],
    ['hello', ['hello']],
  ])('%j → %j', (text, expected) => {
    expect(extractScalars(text)).toEqual(expected);
  });
});

describe('yaml', () => {
  it('reads key: value reports', () => {
    expect(extractYaml('name: server-1\nstatus: running\nuptime: 3600\n')).toEqual({ name: 'server-1', status: 'running', uptime: 3600 });
  });
  it('falls back to one pair per line when the text is not YAML', () => {
    expect(extractYaml('Status: ok: yes\nTime: 12:30')).toEqual({ Status: 'ok: yes', Time: '12:30' });
  });
  it('yields nothing for prose', () => {
    expect(extractYaml('just some words')).toBeUndefined();
  });
  it('never lets __proto__ through', () => {
    const value = extractYaml('__proto__:\n  polluted: yes\nname: a') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['name']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('regex', () => {
  it('maps named groups of the first match to fields', () => {
    expect(extractRegex('Paris: 21\nOslo: -3', /(?<city>\w+): (?<t>-?\d+)/, false)).toEqual({ city: 'Paris', t: '21' });
  });
  it('with all: every match as an array; none → []', () => {
    expect(extractRegex('Paris: 21\nOslo: -3', /(?<city>\w+): (?<t>-?\d+)/g, true)).toEqual([{ city: 'Paris', t: '21' }, { city: 'Oslo', t: '-3' }]);
    expect(extractRegex('nothing', /(?<city>\w+): (?<t>-?\d+)/g, true)).toEqual([]);
  });
  it('without all and no match: nothing; without groups: the matched text', () => {
    expect(extractRegex('nothing', /(?<n>\d+)/, false)).toBeUndefined();
    expect(extractRegex('id 42', /\d+/, false)).toBe('42');
  });
  it('omits groups that did not participate', () => {
    expect(extractRegex('a', /(?<x>a)|(?<y>b)/, false)).toEqual({ x: 'a' });
  });
});
