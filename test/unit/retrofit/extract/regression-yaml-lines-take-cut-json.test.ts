/**
 * The `key: value` line fallback of `yaml` took cut-off JSON as a report: `{"a": 1, "b":` became
 * `{'{"a"': '1, "b":'}`, a deeply nested JSON object its first key, `x: [1, 2` the text "[1, 2". A line whose key
 * opens a quote or a brace, or whose value opens one it does not close, now makes the text no such report.
 */
import { describe, expect, it } from 'vitest';
import { readingLocator } from '../../../../src/retrofit/locator.js';
import { extractYaml } from '../../../../src/retrofit/extract/yaml.js';

const read = (text: string) => extractYaml(text, readingLocator({ type: 'object' }, { format: 'yaml' }))?.value;

describe('the yaml line fallback refuses cut-off JSON and YAML', () => {
  it.each([
    ['a JSON object cut after a key', '{"a": 1, "b":'],
    ['a JSON object cut in an array', '{"a": [1, 2'],
    ['a flow map cut', '{a: 1'],
    ['a flow sequence value cut', 'x: [1, 2'],
    ['a quoted value cut', 'Status: ok: yes\nkey: "unterminated'],
    ['a quoted value whose last quote is escaped', 'Status: ok: yes\nkey: "abc\\"'],
    ['JSON nested deeper than YAML reads', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
  ])('%s', (_name, text) => {
    expect(read(text)).toBeUndefined();
  });

  it('still reads reports whose values are closed quotes and brackets', () => {
    expect(read('Status: ok: yes\nx: [1, 2]\nname: "Ada"\nesc: "a\\\\"')).toEqual({ Status: 'ok: yes', x: '[1, 2]', name: '"Ada"', esc: '"a\\\\"' });
  });
});
