/**
 * Regression: config messages that misled or named nothing. A tool set to null was told to "use outputSchema
 * or outputSchemaFile, not both"; a duplicate key said only "Map keys must be unique"; a bad `pattern` in a
 * schema file was reported at the file's 1:1; an empty env variable name passed. Each now says what is wrong,
 * where.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { problemsOf } from './helpers.js';

const rows: readonly { name: string; lines: readonly string[]; files?: Record<string, string>; at: string; text: string; not?: string }[] = [
  { name: 'a tool that is null', lines: ['upstreams:', '  a: { command: node, tools: { t: null } }'], at: '2:35', text: 'upstreams.a.tools.t: must be object (found null)', not: 'not both' },
  {
    name: 'a duplicate key',
    lines: ['upstreams:', '  a:', '    command: node', '    command: python'],
    at: '4:5',
    text: 'upstreams.a: YAML: duplicate key "command" (first at line 3): keys of a map must be unique',
  },
  { name: 'a duplicate upstream', lines: ['upstreams:', '  a:', '    command: node', '  a:', '    command: python'], at: '4:3', text: 'upstreams: YAML: duplicate key "a" (first at line 2)' },
  {
    name: 'a duplicate key inside a list',
    lines: ['clients:', '  - name: x', '    match: { name: a }', '    name: y', 'upstreams:', '  a: { command: node }'],
    at: '4:5',
    text: 'clients[0]: YAML: duplicate key "name" (first at line 2)',
  },
  {
    name: 'a bad pattern in a schema file, at the pattern',
    lines: ['upstreams:', '  a:', '    command: node', '    tools:', '      t: { outputSchemaFile: s.json }'],
    files: { 's.json': '{\n  "type": "object",\n  "properties": {\n    "a": { "pattern": "(" }\n  }\n}\n' },
    at: 's.json:4:23',
    text: 'properties.a.pattern: outputSchema does not compile: Invalid regular expression: /(/u: Unterminated group',
  },
  {
    name: 'a bad patternProperties name in an inline schema',
    lines: ['upstreams:', '  a:', '    command: node', '    tools:', '      t:', '        outputSchema:', '          type: object', '          patternProperties:', '            "[": { type: string }'],
    at: '9:18',
    text: 'upstreams.a.tools.t.outputSchema.patternProperties["["]: outputSchema does not compile: Invalid regular expression: /[/u',
  },
  { name: 'an empty env name', lines: ['upstreams:', '  e: { command: node, env: { "": x } }'], at: '2:30', text: 'upstreams.e.env: invalid name "": an environment variable name is not empty and holds no "=" or NUL' },
  { name: 'an env name with =', lines: ['upstreams:', '  e: { command: node, env: { "A=B": x } }'], at: '2:30', text: 'invalid name "A=B"' },
];

describe('config messages say what is wrong, where', () => {
  test.each(rows)('$name', async (row) => {
    const { dir, problems } = await problemsOf(`${row.lines.join('\n')}\n`, {}, row.files ?? {});
    const shown = problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
    const at = row.at.includes('.json:') ? join(dir, row.at) : `${join(dir, 'config.yaml')}:${row.at}`;
    const here = shown.filter((s) => s.startsWith(`${at} `));
    expect(here, shown.join('\n')).toContainEqual(expect.stringContaining(row.text));
    if (row.not !== undefined) for (const s of shown) expect(s).not.toContain(row.not);
  });
});
