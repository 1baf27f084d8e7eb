/**
 * `mcp-retrofit check --probe` against a real published server strict clients reject today:
 * @modelcontextprotocol/server-filesystem 2025.7.1 (every inputSchema lacks `type: "object"`), spawned over
 * stdio from a YAML config. The probe lists every tool and prints the repair and retrofit each would get;
 * a glob that matches none of its tools is a warning at the key's FILE:LINE:COL, and the exit code stays 0.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../../src/cli/check.js';

const SERVER = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
let dir = '';

const CONFIG = (data: string): string => `upstreams:
  fs:
    command: node
    args: [${JSON.stringify(SERVER)}, ${JSON.stringify(data)}]
    tools:
      directory_tree:
        outputSchemaFile: tree.schema.json
        extract: { format: json }
      get_file_info:
        outputSchema: { type: object }
        extract: { format: yaml }
      "list_*":
        outputSchema: { type: array, items: { type: string } }
        extract: { format: regex, pattern: '^\\[(?:FILE|DIR)\\] (?<name>.+)$', flags: m, all: true }
      "nothing_*":
        outputSchema: { type: object }
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'retrofit-probe-fs-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'a.txt'), 'hello\n');
  writeFileSync(join(dir, 'tree.schema.json'), JSON.stringify({ type: 'array', items: { type: 'object' } }));
  writeFileSync(join(dir, 'gateway.yaml'), CONFIG(join(dir, 'data')));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
}

it('lists every tool of server-filesystem 2025.7.1 with its repairs and retrofit; an unmatched glob is a warning', async () => {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const file = join(dir, 'gateway.yaml');

  expect(await run(['--config', file, '--probe'], { stdout, stderr })).toBe(0);

  const lines = out().split('\n').filter(Boolean);
  // The verdict comes last, once the probe is done.
  expect(lines.slice(-2)).toEqual(['probe: 1 of 1 upstream answered', 'ok']);
  expect(lines[0]).toMatch(/^fs: \d+ tools \(stdio, server secure-filesystem-server [\d.]+, revision \d{4}-\d{2}-\d{2}\)$/);
  expect(lines[1]).toMatch(/^ {2}served at: 2026-07-28 \(on pooled sessions, up to 4\), /);
  const tools = lines.slice(2, -2);
  expect(tools.length).toBeGreaterThanOrEqual(10);
  for (const line of tools) expect(line).toMatch(/^fs\/\w+: /);

  // The repair the v1 and v2 SDK clients need, on the tools without configuration too.
  expect(tools).toContain('fs/read_file: repair input_type_added (root type "object" added)');
  expect(tools).toContain('fs/write_file: repair input_type_added (root type "object" added)');
  expect(tools).toContain(
    'fs/directory_tree: repair input_type_added (root type "object" added); outputSchema from tree.schema.json, extract json, non-object root wrapped as {result} for 2025-06-18/2025-11-25 clients',
  );
  expect(tools).toContain('fs/get_file_info: repair input_type_added (root type "object" added); outputSchema inline, extract yaml');
  expect(tools).toContain(
    'fs/list_directory: repair input_type_added (root type "object" added); outputSchema inline (key "list_*"), extract regex, non-object root wrapped as {result} for 2025-06-18/2025-11-25 clients',
  );
  expect(tools.filter((l) => l.includes('repair input_type_added')).length).toBeGreaterThanOrEqual(10);
  expect(lines.at(-2)).toBe('probe: 1 of 1 upstream answered');

  // The glob is on line 15, column 7 of the config.
  expect(err()).toBe(`${file}:15:7 warning: upstreams.fs.tools: key "nothing_*" matches no tool listed by "fs"\n`);
});
