import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../../src/json.js';
import { readingLocator } from '../../../../src/retrofit/locator.js';
import { extractYaml } from '../../../../src/retrofit/extract/yaml.js';

const read = (text: string, schema: JsonSchema = {}, extract = { format: 'yaml' as const }) => extractYaml(text, readingLocator(schema, extract));
const value = (text: string, schema: JsonSchema = {}) => read(text, schema)?.value;

describe('yaml', () => {
  it('reads key: value reports', () => {
    expect(value('name: server-1\nstatus: running\nuptime: 3600\n')).toEqual({ name: 'server-1', status: 'running', uptime: 3600 });
  });
  it('falls back to one pair per line when the text is not YAML', () => {
    expect(value('Status: ok: yes\nTime: 12:30')).toEqual({ Status: 'ok: yes', Time: '12:30' });
  });
  it('yields nothing for prose', () => {
    expect(read('just some words')).toBeUndefined();
  });
  it('never lets __proto__ through', () => {
    const v = value('__proto__:\n  polluted: yes\nname: a') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['name']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const text = 'permissions: 644\nzip: 02134\nversion: 1.10\nflag: yes\nday: 2025-01-01\nsize: 2048\non: true\nnone: ~\n';
  it('keeps the text of every scalar where the schema wants a string', () => {
    const strings: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
    expect(value(text, strings)).toEqual({ permissions: '644', zip: '02134', version: '1.10', flag: 'yes', day: '2025-01-01', size: '2048', on: 'true', none: '~' });
  });
  it('types a scalar as YAML does only where the schema asks for that type', () => {
    const schema: JsonSchema = { type: 'object', properties: { size: { type: 'integer' }, zip: { type: 'integer' }, version: { type: 'number' }, on: { type: 'boolean' }, none: { type: 'null' } } };
    expect(value(text, schema)).toMatchObject({ size: 2048, zip: 2134, version: 1.1, on: true, none: null, permissions: 644, flag: 'yes' });
  });
  it('where nothing is wanted, a scalar is typed only when it prints back as the same text', () => {
    expect(value(text)).toEqual({ permissions: 644, zip: '02134', version: '1.10', flag: 'yes', day: '2025-01-01', size: 2048, on: true, none: null });
  });
  it('string|number keeps the text unless the number prints back the same', () => {
    const either: JsonSchema = { type: 'object', additionalProperties: { type: ['string', 'number'] } };
    expect(value('a: 644\nb: 1.10\nc: 02134', either)).toEqual({ a: 644, b: '1.10', c: '02134' });
  });
  it('follows anyOf, $ref, items and patternProperties', () => {
    const schema: JsonSchema = {
      $defs: { s: { type: 'string' } },
      type: 'object',
      properties: { ids: { type: 'array', items: { $ref: '#/$defs/s' } }, v: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      patternProperties: { '^n_': { type: 'integer' } },
    };
    expect(value('ids: [007, 8]\nv: 1.0\nn_a: 5\nother: 05', schema)).toEqual({ ids: ['007', '8'], v: '1.0', n_a: 5, other: '05' });
  });
  it('never turns a number beyond 2^53 into another number, and says why', () => {
    const reading = read('id: 9007199254740993', { type: 'object', properties: { id: { type: 'integer' } } });
    expect(reading?.value).toEqual({ id: '9007199254740993' });
    expect(reading?.notes.join('\n')).toContain('/id 9007199254740993 has more digits than a JSON number holds exactly');
  });
  it('quoted scalars are strings; aliases are typed where they land', () => {
    expect(value('a: "644"\nb: &x 010\nc: *x', { type: 'object', properties: { b: { type: 'integer' }, c: { type: 'string' } } })).toEqual({ a: '644', b: 10, c: '010' });
  });
  it('an alias bomb is refused with a reason, not expanded', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 7 }, (_, i) => `${'bcdefgh'[i]}: &${'bcdefgh'[i]} [${Array(10).fill(`*${'abcdefg'[i]}`).join(', ')}]`)].join('\n');
    const notes: string[] = [];
    expect(extractYaml(bomb, readingLocator({}, { format: 'yaml' }), notes)).toBeUndefined();
    expect(notes[0]).toContain('expands to more than');
  });
  it('with select, the schema applies under the selected key', () => {
    const schema: JsonSchema = { type: 'object', properties: { zip: { type: 'string' } } };
    expect(extractYaml('data:\n  zip: 02134\nother: 010', readingLocator(schema, { format: 'yaml', select: '/data' }))?.value).toEqual({ data: { zip: '02134' }, other: '010' });
  });
});
