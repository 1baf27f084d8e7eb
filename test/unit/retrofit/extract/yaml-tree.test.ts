/** The YAML tree keeps each scalar's source text; runYaml bounds the input and reads it into the same tree. */
import { describe, expect, it } from 'vitest';
import { runYaml, YAML_MAX_INPUT } from '../../../../src/retrofit/extract/unbounded.js';
import { parseYamlTree } from '../../../../src/retrofit/extract/yaml-tree.js';

const DOCS = [
  'permissions: 644\nzip: 02134\nversion: 1.10\nflag: yes\nday: 2025-01-01',
  'a: &x [1, "2", {b: ~}]\nc: *x\n? [k]\n: v',
  '- 0x1F\n- .inf\n- !!str 12\n- |\n  block\n- [a: 1]',
  'key: "quoted: yes"\nother: \'single\'\nempty:\n9007199254740993: big',
  'just a scalar',
  'bad: [unclosed',
];

describe('yaml tree', () => {
  it('keeps source text next to the YAML value', () => {
    expect(parseYamlTree('v: 1.10')).toEqual({ ok: true, tree: { k: 'map', pairs: [[{ k: 'scalar', v: 'v', src: 'v', quoted: false }, { k: 'scalar', v: 1.1, src: '1.10', quoted: false }]] } });
    expect(parseYamlTree('a: [1')).toEqual({ ok: false, reason: 'not YAML', invalid: true });
  });
  it.each(DOCS)('runYaml reads %j as parseYamlTree does', (doc) => {
    expect(runYaml(doc)).toEqual(parseYamlTree(doc));
  });
  it('refuses a text over YAML_MAX_INPUT before parsing', () => {
    expect(runYaml('a'.repeat(YAML_MAX_INPUT + 1))).toEqual({ ok: false, reason: `the text is longer than ${YAML_MAX_INPUT} characters, the limit for YAML extraction` });
  });
});
