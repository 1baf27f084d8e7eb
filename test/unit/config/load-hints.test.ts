/**
 * check's hints match what was written, and one run reports every problem of a file: misplaced keys say where
 * they belong, enum values get a did-you-mean, regex flags are described as written, and a broken part of an
 * upstream does not hide the problems in its other parts.
 */
import { describe, expect, test } from 'vitest';
import { problemsOf } from './helpers.js';

const tool = ['upstreams:', '  a:', '    url: http://127.0.0.1:9000/mcp', '    tools:', '      t:'];
const messages = async (lines: readonly string[]): Promise<string[]> => (await problemsOf(`${lines.join('\n')}\n`)).problems.map((p) => `${p.line}:${p.col} ${p.message}`);

describe('misplaced keys say where they belong', () => {
  test.each([
    ['an extract key at tool level', [...tool, '        select: /data'], '6:9 upstreams.a.tools.t: unknown key "select" (it belongs under `extract`)'],
    ['format at tool level', [...tool, '        format: json'], '6:9 upstreams.a.tools.t: unknown key "format" (it belongs under `extract`)'],
    ['a tool key at upstream level', ['upstreams:', '  a:', '    url: http://x/mcp', '    outputSchema: { type: object }'], '4:5 upstreams.a: unknown key "outputSchema" (it belongs under `tools.<name>`)'],
    ['a setting of tools and defaults at upstream level', ['upstreams:', '  a:', '    url: http://x/mcp', '    onInvalid: error'], '4:5 upstreams.a: unknown key "onInvalid" (it belongs under `tools.<name>` or `defaults`)'],
    ['a listen key at the root', ['port: 9090', 'upstreams:', '  a: { url: http://x/mcp }'], '1:1 unknown key "port" (it belongs under `listen`)'],
    ['an upstream key inside a tool', [...tool, '        timeoutMs: 5'], '6:9 upstreams.a.tools.t: unknown key "timeoutMs" (it belongs under `upstreams.a`)'],
    ['a root key inside an upstream', ['upstreams:', '  a:', '    url: http://x/mcp', '    limits: { maxResultBytes: 1024 }'], '4:5 upstreams.a: unknown key "limits" (it belongs at the top level of the config)'],
    ['a tool key inside extract', [...tool, '        extract: { format: json, onInvalid: error }'], '6:34 upstreams.a.tools.t.extract: unknown key "onInvalid" (it belongs under `upstreams.a.tools.t` or `defaults`)'],
  ])('%s', async (_name, lines, want) => {
    expect(await messages(lines)).toEqual([want]);
  });

  test('a typo still gets its did-you-mean', async () => {
    expect(await messages([...tool, '        ouputSchema: { type: object }'])).toEqual(['6:9 upstreams.a.tools.t: unknown key "ouputSchema" (did you mean "outputSchema"?)']);
  });
});

describe('enum values get a did-you-mean', () => {
  test.each([
    [[...tool, '        extract: { format: jsn }'], '6:28 upstreams.a.tools.t.extract.format: must be one of auto, json, yaml, regex, table, csv, list (did you mean "json"?)'],
    [[...tool, '        onInvalid: eror'], '6:20 upstreams.a.tools.t.onInvalid: must be one of error, passthrough (did you mean "error"?)'],
    [['defaults: { legacyRoots: wrapp }', 'upstreams:', '  a: { url: http://x/mcp }'], '1:26 defaults.legacyRoots: must be one of wrap, drop (did you mean "wrap"?)'],
    [[...tool, '        onInvalid: zzz'], '6:20 upstreams.a.tools.t.onInvalid: must be one of error, passthrough'],
  ])('%j', async (lines, want) => {
    expect(await messages(lines)).toEqual([want]);
  });
});

describe('regex flags and patterns', () => {
  const regex = (flags: string, pattern: string): string[] => [...tool, '        extract:', '          format: regex', `          pattern: '${pattern}'`, `          flags: ${flags}`];

  test.each([
    ['x', 'may only hold the flags m, i, s, u, each once ("x" is not a flag)'],
    ['gi', 'may only hold the flags m, i, s, u, each once (for g use `all: true`, which decides global matching)'],
    ['iy', 'may only hold the flags m, i, s, u, each once (y (sticky) is not supported)'],
    ['mim', 'may only hold the flags m, i, s, u, each once (m is repeated)'],
  ])('flags %s: the message is about the flags written', async (flags, want) => {
    expect(await messages(regex(flags, 'a'))).toEqual([`9:18 upstreams.a.tools.t.extract.flags: ${want}`]);
  });

  test('a flags error and a pattern error in the same tool are both reported, the regex error said once', async () => {
    expect(await messages(regex('x', '('))).toEqual([
      '8:20 upstreams.a.tools.t.extract.pattern: invalid regular expression: /(/: Unterminated group',
      '9:18 upstreams.a.tools.t.extract.flags: may only hold the flags m, i, s, u, each once ("x" is not a flag)',
    ]);
  });

  test('the pattern is checked with the usable flags: a u-mode error shows while the flags are broken', async () => {
    const got = await messages(regex('ux', '\\-'));
    expect(got).toHaveLength(2);
    expect(got[0]).toMatch(/^8:20 upstreams\.a\.tools\.t\.extract\.pattern: invalid regular expression: \/\\-\/u: Invalid escape$/);
  });
});

describe('one run reports every problem of a file', () => {
  test('a typo in an upstream does not hide broken schemas and patterns in its tools, nor a broken schema file', async () => {
    const lines = [
      'upstreams:',
      '  a:',
      '    url: http://127.0.0.1:9000/mcp',
      '    timeout: 5',
      '    tools:',
      '      t: { outputSchema: { type: nope } }',
      "      r: { extract: { format: regex, pattern: '[' } }",
      '      f: { outputSchemaFile: missing.json }',
    ];
    const got = await messages(lines);
    expect(got).toEqual([
      '4:5 upstreams.a: unknown key "timeout" (did you mean "timeoutMs"?)',
      expect.stringMatching(/^6:\d+ upstreams\.a\.tools\.t\.outputSchema\.type: outputSchema does not compile/),
      expect.stringMatching(/^7:\d+ upstreams\.a\.tools\.r\.extract\.pattern: invalid regular expression: \/\[\/: Unterminated character class$/),
      expect.stringMatching(/^8:\d+ upstreams\.a\.tools\.f: cannot read schema file .*missing\.json \(no such file\)$/),
    ]);
  });

  test('a problem at a whole upstream (two transports) does not hide its tools either', async () => {
    const got = await messages(['upstreams:', '  a:', '    url: http://x/mcp', '    command: node', '    tools:', '      t: { outputSchema: { type: nope } }']);
    expect(got).toHaveLength(2);
    expect(got[0]).toBe('2:3 upstreams.a: must have exactly one of url, sse, command (found url and command)');
    expect(got[1]).toMatch(/^6:\d+ upstreams\.a\.tools\.t\.outputSchema\.type: outputSchema does not compile/);
  });

  test('what the schema already says is not said again by the compiler', async () => {
    expect(await messages([...tool, '        extract: { format: regex }'])).toEqual(['6:9 upstreams.a.tools.t.extract: `format: regex` needs a `pattern`']);
    expect(await messages([...tool, '        extract: { format: regex, pattern: "" }'])).toEqual(['6:44 upstreams.a.tools.t.extract.pattern: must not be empty']);
  });
});
