/**
 * The table of bad configs: each must be rejected with a problem at the expected line:col whose message
 * contains the expected text. Lines are given as arrays so the positions can be read off the source.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { problemsOf } from './helpers.js';

interface Row {
  readonly name: string;
  readonly lines: readonly string[];
  readonly env?: Record<string, string>;
  readonly files?: Record<string, string>;
  /** line, col, message substring; `file` when the problem is in another file of the temp dir. */
  readonly want: { line: number; col: number; text: string; file?: string };
}

const http = ['upstreams:', '  a:', '    url: http://127.0.0.1:9000/mcp'];
const tool = [...http, '    tools:', '      t:'];

const rows: readonly Row[] = [
  { name: 'YAML syntax error', lines: ['upstreams:', '  a: [1, 2'], want: { line: 3, col: 1, text: 'YAML:' } },
  {
    name: 'unquoted ${VAR} in a flow map',
    lines: ['upstreams:', '  a: { url: http://x/mcp, headers: { X: ${V} } }'],
    env: { V: 'v' },
    want: { line: 2, col: 42, text: 'quote values that hold ${…}' },
  },
  { name: 'duplicate key', lines: [...http, '    url: http://x/mcp'], want: { line: 4, col: 5, text: 'upstreams.a: YAML: duplicate key "url" (first at line 3): keys of a map must be unique' } },
  {
    name: 'unknown key at root with hint',
    lines: ['upstrems:', '  a: { url: http://x/mcp }'],
    want: { line: 1, col: 1, text: 'unknown key "upstrems" (did you mean "upstreams"?)' },
  },
  {
    name: 'unknown key in upstream with hint',
    lines: [...http, '    timeout: 5'],
    want: { line: 4, col: 5, text: 'upstreams.a: unknown key "timeout" (did you mean "timeoutMs"?)' },
  },
  {
    name: 'unknown key in tool with hint',
    lines: [...tool, '        ouputSchema: { type: object }'],
    want: { line: 6, col: 9, text: 'unknown key "ouputSchema" (did you mean "outputSchema"?)' },
  },
  {
    name: 'unknown key in extract with hint',
    lines: [...tool, '        extract:', '          format: regex', '          patern: x'],
    want: { line: 8, col: 11, text: 'unknown key "patern" (did you mean "pattern"?)' },
  },
  { name: 'upstream with none of url/sse/command', lines: ['upstreams:', '  a:', '    timeoutMs: 5'], want: { line: 2, col: 3, text: 'upstreams.a: must have exactly one of url, sse, command (found none)' } },
  {
    name: 'upstream with two of url/sse/command',
    lines: [...http, '    command: node'],
    want: { line: 2, col: 3, text: 'upstreams.a: must have exactly one of url, sse, command (found url and command)' },
  },
  { name: 'port not an integer', lines: ['listen:', '  port: abc', ...http], want: { line: 2, col: 9, text: 'listen.port: must be integer' } },
  { name: 'port out of range', lines: ['listen:', '  port: 70000', ...http], want: { line: 2, col: 9, text: 'listen.port: must be <= 65535' } },
  { name: 'negative timeoutMs', lines: [...http, '    timeoutMs: -5'], want: { line: 4, col: 16, text: 'upstreams.a.timeoutMs: must be >= 1' } },
  { name: 'regex without pattern', lines: [...tool, '        extract:', '          format: regex'], want: { line: 6, col: 9, text: '`format: regex` needs a `pattern`' } },
  {
    name: 'pattern with format json',
    lines: [...tool, '        extract:', '          format: json', '          pattern: x'],
    want: { line: 8, col: 11, text: '`pattern` cannot be used with format json' },
  },
  {
    name: 'global flag',
    lines: [...tool, '        extract:', '          format: regex', '          pattern: x', '          flags: gi'],
    want: { line: 9, col: 18, text: 'may only hold the flags m, i, s, u' },
  },
  {
    name: 'unset ${VAR}',
    lines: ['upstreams:', '  a:', '    url: http://${UPSTREAM_HOST}/mcp'],
    want: { line: 3, col: 10, text: 'upstreams.a.url: environment variable UPSTREAM_HOST is not set' },
  },
  { name: 'malformed ${', lines: ['upstreams:', '  a:', '    url: http://${HOST/mcp'], want: { line: 3, col: 10, text: 'malformed expression' } },
  { name: 'bad upstream name', lines: ['upstreams:', '  "bad name":', '    url: http://x/mcp'], want: { line: 2, col: 3, text: 'invalid name "bad name"' } },
  {
    name: 'duplicate path',
    lines: [...http, '    path: /x', '  b:', '    url: http://y/mcp', '    path: /x'],
    want: { line: 7, col: 11, text: 'upstreams.b: path /x is already used by upstream "a"' },
  },
  {
    name: 'explicit path equal to another default path',
    lines: [...http, '    path: /b/mcp', '  b:', '    sse: http://y/sse'],
    want: { line: 5, col: 3, text: 'path /b/mcp is already used by upstream "a" (this is the default path' },
  },
  { name: 'reserved path', lines: [...http, '    path: /metrics'], want: { line: 4, col: 11, text: 'upstreams.a.path: is reserved' } },
  { name: 'path without leading slash', lines: [...http, '    path: weather'], want: { line: 4, col: 11, text: 'must start with "/"' } },
  {
    name: 'outputSchema and outputSchemaFile',
    lines: [...tool, '        outputSchema: { type: object }', '        outputSchemaFile: s.json'],
    want: { line: 5, col: 7, text: 'use outputSchema or outputSchemaFile, not both' },
  },
  {
    name: 'missing schema file',
    lines: [...tool, '        outputSchemaFile: schemas/nope.json'],
    want: { line: 6, col: 9, text: 'cannot read schema file' },
  },
  {
    name: 'schema file with a YAML error (reported inside it)',
    lines: [...tool, '        outputSchemaFile: s.yaml'],
    files: { 's.yaml': 'type: object\nproperties:\n  a: [1\n' },
    want: { file: 's.yaml', line: 4, col: 1, text: 'YAML:' },
  },
  {
    name: 'schema file that is not a schema',
    lines: [...tool, '        inputSchemaFile: s.json'],
    files: { 's.json': '[1, 2]' },
    want: { file: 's.json', line: 1, col: 1, text: 'must be an object or a boolean' },
  },
  { name: 'bad select pointer', lines: [...tool, '        extract:', '          select: data'], want: { line: 7, col: 19, text: 'must be a JSON pointer' } },
  { name: 'onInvalid not in enum', lines: [...tool, '        onInvalid: fail'], want: { line: 6, col: 20, text: 'onInvalid: must be one of error, passthrough' } },
  { name: 'defaults.coerce of the wrong type', lines: ['defaults:', '  coerce: "yes"', ...http], want: { line: 2, col: 11, text: 'defaults.coerce: must be boolean' } },
  { name: 'outputSchema that is a string', lines: [...tool, '        outputSchema: integer'], want: { line: 6, col: 23, text: 'must be object or boolean' } },
  { name: 'headers on a stdio upstream', lines: ['upstreams:', '  a:', '    command: node', '    headers: { A: b }'], want: { line: 4, col: 5, text: '`headers` is only for url and sse upstreams' } },
  { name: 'args on a url upstream', lines: [...http, '    args: [x]'], want: { line: 4, col: 5, text: '`args` is only for command (stdio) upstreams' } },
  { name: 'url that is not http', lines: ['upstreams:', '  a:', '    url: ftp://x/mcp'], want: { line: 3, col: 10, text: 'must be an http:// or https:// URL' } },
  { name: 'no upstreams at all', lines: ['listen:', '  port: 1'], want: { line: 1, col: 1, text: 'missing required key "upstreams"' } },
  { name: 'empty upstreams', lines: ['upstreams: {}'], want: { line: 1, col: 1, text: 'upstreams: must not be empty' } },
  { name: 'auth without tokens', lines: ['auth: {}', ...http], want: { line: 1, col: 1, text: 'auth: missing required key "bearerTokens"' } },
  { name: 'empty wrap', lines: [...tool, '        extract: { wrap: "" }'], want: { line: 6, col: 26, text: 'wrap: must not be empty' } },
  { name: 'empty config file', lines: ['# nothing here'], want: { line: 1, col: 1, text: 'the config file is empty' } },
  { name: 'config that is not a map', lines: ['- a', '- b'], want: { line: 1, col: 1, text: 'must be object' } },
  // A number JSON cannot write would reach clients as null (the v1 client's listTools then throws).
  { name: 'a schema bound of .inf', lines: [...tool, '        outputSchema: { type: number, maximum: .inf }'], want: { line: 6, col: 48, text: 'upstreams.a.tools.t.outputSchema.maximum: not a finite number' } },
  {
    name: 'a schema file with a number past the doubles',
    lines: [...tool, '        inputSchemaFile: s.json'],
    files: { 's.json': '{"type": "object", "properties": {"n": {"enum": [1, 1e400]}}}' },
    want: { file: 's.json', line: 1, col: 53, text: 'not a finite number' },
  },
];

describe('loadConfig rejects bad configs at the right place', () => {
  test.each(rows)('$name', async (row) => {
    const { dir, problems } = await problemsOf(`${row.lines.join('\n')}\n`, row.env, row.files);
    const file = join(dir, row.want.file ?? 'config.yaml');
    const shown = problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
    const here = shown.filter((s) => s.startsWith(`${file}:${row.want.line}:${row.want.col} `));
    expect(here, shown.join('\n')).toContainEqual(expect.stringContaining(row.want.text));
    if (process.env.SHOW_PROBLEMS) process.stdout.write(`${row.name}\n  ${shown.join('\n  ')}\n`);
    for (const p of problems) expect(p.message).not.toMatch(/\n/);
  });

  test('an unknown key without a near match gets no hint', async () => {
    const { problems } = await problemsOf(`${[...http, '    zzzqqq: 1'].join('\n')}\n`);
    expect(problems.map((p) => p.message)).toEqual(['upstreams.a: unknown key "zzzqqq"']);
  });

  test('every problem in the file is reported at once, sorted by line', async () => {
    const yaml = [
      'listen:',
      '  port: -1',
      'upstreams:',
      '  a:',
      '    url: http://${NOPE}/mcp',
      '    tools:',
      '      t: { onInvalid: maybe }',
      '  b:',
      '    command: node',
      '    cwdd: /tmp',
    ].join('\n');
    const { problems } = await problemsOf(`${yaml}\n`);
    expect(problems.map((p) => [p.line, p.col])).toEqual([
      [2, 9],
      [5, 10],
      [7, 23],
      [10, 5],
    ]);
    expect(problems[3]?.message).toBe('upstreams.b: unknown key "cwdd" (did you mean "cwd"?)');
  });

  test('an unset variable is not reported a second time as an invalid value', async () => {
    const { problems } = await problemsOf('auth:\n  bearerTokens: ["${TOKEN}"]\nupstreams:\n  a: { url: http://x/mcp }\n');
    expect(problems.map((p) => p.message)).toEqual(['auth.bearerTokens[0]: environment variable TOKEN is not set']);
  });

  test('a schema file path that is a directory is one clear problem', async () => {
    const { problems } = await problemsOf('upstreams:\n  a:\n    url: http://x/mcp\n    tools:\n      t: { inputSchemaFile: . }\n');
    expect(problems[0]?.message).toMatch(/cannot read schema file .* \(is a directory\)/);
  });
});
