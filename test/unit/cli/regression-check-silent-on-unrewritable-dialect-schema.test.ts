/**
 * Regression: a client profile with `schemaDialect: 2020-12` serves a configured draft-07 / 2019-09 schema
 * that has no faithful 2020-12 rewrite as written (src/retrofit/dialect.ts), and `check` said nothing about
 * it: the operator learnt only from a 2020-12-only client misreading the schema. `check` (run in-process
 * through run(), on real files) now warns once per tool schema and profile, where the schema is written, with
 * the rewrite's own reason, and still exits 0.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { run } from '../../../src/cli/check.js';
import { textSink } from '../../helpers/cli.js';
import { tempFiles } from '../config/helpers.js';

const D7 = 'http://json-schema.org/draft-07/schema#';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';

async function check(files: Readonly<Record<string, string>>): Promise<{ code: number; out: string; err: string; file: string }> {
  const dir = await tempFiles(files);
  const stdout = textSink();
  const stderr = textSink();
  const file = join(dir, 'c.yaml');
  const code = await run(['--config', file], { stdout, stderr });
  return { code, out: stdout.text(), err: stderr.text(), file };
}

const PROFILES = [
  'clients:',
  '  - name: claude',
  '    match: { name: "claude-*" }',
  '    schemaDialect: 2020-12',
  '  - name: stripped',
  '    match: { name: legacy-host }',
  '    schemaDialect: 2020-12',
  '    outputSchema: strip',
  '  - name: codex',
  '    match: { name: codex-mcp-client }',
  '    textFallback: true',
  '  - name: old',
  '    match: { revision: [2024-11-05, 2025-03-26] }',
  '    schemaDialect: 2020-12',
];

describe('check warns about schemas a schemaDialect: 2020-12 profile serves unrewritten', () => {
  test('one warning per tool schema and profile shown it, at the schema, with the reason; exit 0', async () => {
    const r = await check({
      'c.yaml': [
        ...PROFILES,
        'upstreams:',
        '  mem:',
        '    url: http://127.0.0.1:1/mcp',
        '    tools:',
        '      tuple:',
        '        outputSchema:',
        `          $schema: "${D7}"`,
        '          type: object',
        '          prefixItems: [{ type: string }]',
        '          properties: { a: { $ref: "#/prefixItems/0" } }',
        '      deps:',
        '        inputSchema:',
        `          $schema: "${D2019}"`,
        '          type: object',
        '          dependencies: { a: { required: [b] } }',
        '          dependentSchemas: { a: { required: [c] } }',
        '      fromFile:',
        '        outputSchemaFile: anchor.json',
        '',
      ].join('\n'),
      'anchor.json': JSON.stringify({ $schema: D7, type: 'object', definitions: { a: { $id: 'a.json#x' } } }),
    });
    expect({ code: r.code, out: r.out }).toEqual({ code: 0, out: 'ok\n' });
    const why = (profile: string, reason: string): string =>
      `clients of profile "${profile}" (schemaDialect: 2020-12) get this schema as written, in its own draft: it has no faithful 2020-12 rewrite (${reason})`;
    expect(r.err.split('\n').filter(Boolean)).toEqual([
      `${r.file}:20:9 warning: upstreams.mem.tools.tuple.outputSchema: ${why('claude', '$ref into prefixItems, which draft-07 ignores and the rewrite drops')}`,
      // A stripped profile, and one only for revisions without outputSchema, are shown no outputSchema; every
      // profile is shown the configured inputSchema.
      `${r.file}:26:9 warning: upstreams.mem.tools.deps.inputSchema: ${why('claude', 'two dependentSchemas schemas for "a"')}`,
      `${r.file}:26:9 warning: upstreams.mem.tools.deps.inputSchema: ${why('stripped', 'two dependentSchemas schemas for "a"')}`,
      `${r.file}:26:9 warning: upstreams.mem.tools.deps.inputSchema: ${why('old', 'two dependentSchemas schemas for "a"')}`,
      `${r.file}:32:9 warning: upstreams.mem.tools.fromFile.outputSchemaFile: ${why('claude', '$id "a.json#x" has no 2020-12 form')}`,
    ]);
  });

  test('schemas the profile rewrites faithfully, or never shows, give no warning', async () => {
    const r = await check({
      'c.yaml': [
        ...PROFILES,
        'upstreams:',
        '  mem:',
        '    url: http://127.0.0.1:1/mcp',
        '    tools:',
        '      local:',
        '        outputSchema:',
        `          $schema: "${D7}"`,
        '          type: object',
        '          definitions: { n: { type: integer } }',
        '          properties: { n: { $ref: "#/definitions/n" } }',
        '      crossFile:',
        '        outputSchema:',
        `          $schema: "${D7}"`,
        '          type: object',
        '          properties: { n: { $ref: "common.json#/definitions/count" } }',
        '      already2020:',
        '        outputSchema: { type: object, properties: { n: { type: integer } } }',
        '      shadowed:',
        '        shadow: true',
        '        outputSchema:',
        `          $schema: "${D7}"`,
        '          type: object',
        '          prefixItems: [{ type: string }]',
        '          properties: { a: { $ref: "#/prefixItems/0" } }',
        '',
      ].join('\n'),
      'common.json': JSON.stringify({ $schema: D7, definitions: { count: { type: 'integer', minimum: 0 } } }),
    });
    expect(r).toMatchObject({ code: 0, out: 'ok\n', err: '' });
  });

  test('without a 2020-12 profile the same schema gives no warning', async () => {
    const r = await check({
      'c.yaml': [
        'clients:',
        '  - name: codex',
        '    match: { name: codex-mcp-client }',
        '    textFallback: true',
        'upstreams:',
        '  mem:',
        '    url: http://127.0.0.1:1/mcp',
        '    tools:',
        `      tuple: { outputSchema: { $schema: "${D7}", type: object, prefixItems: [{ type: string }], properties: { a: { $ref: "#/prefixItems/0" } } } }`,
        '',
      ].join('\n'),
    });
    expect(r).toMatchObject({ code: 0, out: 'ok\n', err: '' });
  });
});
