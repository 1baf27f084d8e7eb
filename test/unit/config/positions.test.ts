/**
 * The position-aware YAML parser: aliases are bounded, and nodes reached through an alias are placed where
 * their anchor's nodes are written.
 */
import { describe, expect, test } from 'vitest';
import { MAX_ALIAS_NODES, parseWithPositions } from '../../../src/config/positions.js';
import { load, problemsOf } from './helpers.js';

/** A "billion laughs" file: each level aliases the previous one ten times; 10^levels nodes in all. */
function bomb(levels: number): string {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < levels; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]`);
  lines.push('upstreams:', '  up:', '    command: node', `    args: *a${levels - 1}`);
  return lines.join('\n');
}

describe('regression: a YAML alias bomb in the config expands without bound', () => {
  test('a file whose aliases expand to 10^7 nodes fails fast, at the alias that crosses the bound', async () => {
    const started = performance.now();
    const { problems } = await problemsOf(bomb(7));
    expect(performance.now() - started).toBeLessThan(5000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 5, col: 38 });
    expect(problems[0]?.message).toBe(`a4[7]: YAML: aliases expand to more than ${MAX_ALIAS_NODES} nodes (an alias bomb?); write the values out, or share less`);
  });

  test('the parser stops there, with no value', () => {
    const parsed = parseWithPositions(bomb(6), 'bomb.yaml');
    expect(parsed.value).toBeUndefined();
    expect(parsed.problems.map((p) => `${p.line}:${p.col}`)).toEqual(['5:38']);
  });

  test('aliases within the bound still expand', () => {
    const parsed = parseWithPositions(bomb(4), 'small.yaml');
    expect(parsed.problems).toEqual([]);
    expect((parsed.value as { upstreams: { up: { args: unknown[] } } }).upstreams.up.args.flat(3)).toHaveLength(10_000);
  });
});

describe('nodes reached through an alias', () => {
  const lines = [
    'upstreams:',
    '  up:',
    '    command: node',
    '    tools:',
    '      a: &entry',
    '        outputSchema: &schema { type: object, properties: { n: { type: integer } } }',
    '        onInvalid: error',
    '      b: *entry',
    '      c:',
    '        outputSchema: *schema',
  ];

  test('a config sharing tool settings through anchors loads, each alias a copy of its own', async () => {
    const { loaded } = await load(lines.join('\n'));
    const tools = loaded.config.upstreams.up?.tools ?? {};
    expect(tools.b).toEqual(tools.a);
    expect(tools.c?.outputSchema).toEqual(tools.a?.outputSchema);
    expect(tools.c?.outputSchema).not.toBe(tools.a?.outputSchema);
  });

  test('are placed at their anchor: a problem inside an aliased value points where it is written', async () => {
    const bad = lines.map((l) => l.replace('type: integer', 'type: integr').replace('onInvalid: error', 'onInvalid: eror'));
    const { problems } = await problemsOf(bad.join('\n'));
    const at = problems.map((p) => `${p.line}:${p.col} ${p.message.split(':')[0]}`);
    // Once where the anchor is written (for a), once per alias (b, c), each at the anchor's node.
    expect(at).toContain('7:20 upstreams.up.tools.a.onInvalid');
    expect(at).toContain('7:20 upstreams.up.tools.b.onInvalid');
    expect(at.filter((p) => p.startsWith('6:72 '))).toHaveLength(3);
  });

  test('the alias itself is placed where it is written', () => {
    const parsed = parseWithPositions(lines.join('\n'), 'c.yaml');
    expect(parsed.index.locate(['upstreams', 'up', 'tools', 'b'], 'value')).toEqual({ line: 8, col: 10 });
    expect(parsed.index.locate(['upstreams', 'up', 'tools', 'b', 'onInvalid'], 'node')).toEqual({ line: 7, col: 9 });
    expect(parsed.index.locate(['upstreams', 'up', 'tools', 'b', 'nothing', 'here'], 'value')).toEqual({ line: 8, col: 7 });
  });
});

describe('regression: a map of many keys took time growing with the square of their number', () => {
  // The yaml package's duplicate-key check compares each key with every earlier one of its map: a schema
  // file of 200,000 properties did not load within minutes (check, serve, or a reload on the event loop).
  // Judged by how the time grows, not by a duration: eight times the keys take about eight times as long
  // now, and some thirty times as long with the quadratic check (3,000 keys: 0.3 s, 24,000: 10 s).
  const big = (n: number): string => `{${Array.from({ length: n }, (_, i) => `"k${i}": {"type": "string"}`).join(',\n')}}`;
  const timed = (text: string): number => {
    const started = performance.now();
    const parsed = parseWithPositions(text, 'big.json');
    expect(parsed.problems).toEqual([]);
    return performance.now() - started;
  };

  test('eight times the keys take well under twenty times as long, and a repeated key is still named', { timeout: 60_000 }, () => {
    const small = big(3_000);
    const large = big(24_000);
    // The best of three (the first also warms the parser): a collection in one run would read as growth.
    const best = (text: string): number => Math.min(timed(text), timed(text), timed(text));
    expect(best(large) / best(small)).toBeLessThan(20);
    const keys = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    const repeated = parseWithPositions(`a: 1\nb:\n  - x: 1\n    y: 2\n    x: 3\n${keys.map((k) => `${k}: 1`).join('\n')}\nk7: 2\n`, 'dup.yaml');
    expect(repeated.problems).toEqual([
      { file: 'dup.yaml', line: 5, col: 5, message: 'b[0]: YAML: duplicate key "x" (first at line 3): keys of a map must be unique' },
      { file: 'dup.yaml', line: 1006, col: 1, message: 'YAML: duplicate key "k7" (first at line 13): keys of a map must be unique' },
    ]);
  });
});
