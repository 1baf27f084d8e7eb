/**
 * From zero to typed on a real published server, @modelcontextprotocol/server-filesystem 2025.7.1 (text
 * answers: JSON trees, `key: value` reports, line listings): a session recorded through the gateway, `infer`
 * on the recordings, a gateway on the inferred config, and the same session through it gets validated
 * structuredContent from every tool whose answers are structured, with schemas no looser than needed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { expectTyped, recordInferServe, type ScriptedCall } from '../helpers/record-infer.js';
import { REPO } from '../helpers/stdio-gateway.js';

const SERVER = resolve(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const data = mkdtempSync(join(tmpdir(), 'retrofit-fs-data-'));

beforeAll(async () => {
  mkdirSync(join(data, 'sub'));
  writeFileSync(join(data, 'a.txt'), 'hello\n');
  writeFileSync(join(data, 'notes.md'), '# notes\n');
  writeFileSync(join(data, 'sub', 'b.txt'), 'x\n');
  await ensureBuilt();
});
afterAll(() => rmSync(data, { recursive: true, force: true }));

// Every session (recorded, fresh checks, v1, v2) runs this script on the same directory: the writes come
// first and the move is undone, so each session sees the state the last one left, and the same texts.
const CALLS: readonly ScriptedCall[] = [
  { tool: 'create_directory', arguments: { path: join(data, 'made') } },
  { tool: 'create_directory', arguments: { path: join(data, 'made', 'deeper') } },
  { tool: 'write_file', arguments: { path: join(data, 'made', 'w.txt'), content: 'one\n' } },
  { tool: 'write_file', arguments: { path: join(data, 'made', 'w2.txt'), content: 'two\n' } },
  { tool: 'edit_file', arguments: { path: join(data, 'made', 'w.txt'), edits: [{ oldText: 'one', newText: 'uno' }] } },
  { tool: 'edit_file', arguments: { path: join(data, 'made', 'w2.txt'), edits: [{ oldText: 'two', newText: 'dos' }], dryRun: true } },
  { tool: 'move_file', arguments: { source: join(data, 'made', 'w2.txt'), destination: join(data, 'made', 'moved.txt') } },
  { tool: 'move_file', arguments: { source: join(data, 'made', 'moved.txt'), destination: join(data, 'made', 'w2.txt') } },
  { tool: 'list_directory_with_sizes', arguments: { path: data } },
  { tool: 'list_directory_with_sizes', arguments: { path: join(data, 'made'), sortBy: 'size' } },
  { tool: 'list_allowed_directories' },
  { tool: 'directory_tree', arguments: { path: data } },
  { tool: 'directory_tree', arguments: { path: join(data, 'sub') } },
  { tool: 'get_file_info', arguments: { path: join(data, 'a.txt') } },
  { tool: 'get_file_info', arguments: { path: join(data, 'sub') } },
  { tool: 'list_directory', arguments: { path: data } },
  { tool: 'list_directory', arguments: { path: join(data, 'sub') } },
  { tool: 'read_file', arguments: { path: join(data, 'a.txt') } },
  { tool: 'read_multiple_files', arguments: { paths: [join(data, 'a.txt'), join(data, 'notes.md')] } },
  { tool: 'search_files', arguments: { path: data, pattern: 'txt' } },
];

const ALL_TOOLS = [
  'create_directory', 'directory_tree', 'edit_file', 'get_file_info', 'list_allowed_directories', 'list_directory',
  'list_directory_with_sizes', 'move_file', 'read_file', 'read_multiple_files', 'search_files', 'write_file',
];

it('record → infer → serve: all 12 tools typed, no fresh call failing, for v1 and v2 clients (issue 25)', async () => {
  const walk = await recordInferServe('fs', () => ({ command: process.execPath, args: [SERVER, data] }), CALLS);
  // The session called every tool the server lists, and none of its calls failed.
  expect(walk.recorded.tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
  expect(walk.recorded.results.filter((r) => r.isError === true)).toEqual([]);
  expect(Object.keys(walk.files).sort()).toEqual(ALL_TOOLS);
  // Listings, file contents, search hits and "Successfully …" reports are prose to infer: proposed as strings
  // (a regex would read list_directory into entries: see the README).
  expect(Object.keys(walk.inferred).sort()).toEqual(ALL_TOOLS);
  const prose = ALL_TOOLS.filter((t) => t !== 'directory_tree' && t !== 'get_file_info');
  for (const tool of prose) expect([tool, walk.inferred[tool]]).toEqual([tool, { outputSchema: { type: 'string' } }]);
  // The same calls made fresh: every entry held (the helper asserts none was withdrawn).
  expect(walk.freshOut.match(/# verified on \d+ fresh calls? too/g)).toHaveLength(12);
  expect(walk.inferOut).toContain('# list_directory: 2 samples of plain prose: proposed as a string (the text as it is)\n');
  // get_file_info's times move between the sessions (the first one read a.txt).
  expectTyped(walk, CALLS, ['get_file_info']);

  const entry = { type: 'object', required: ['name', 'type'] };
  expect(walk.inferred.directory_tree).toMatchObject({ extract: { format: 'json' }, outputSchema: { type: 'array', items: { ...entry, properties: { children: { type: 'array', items: entry } } } } });
  expect(walk.inferred.get_file_info).toMatchObject({
    extract: { format: 'yaml' },
    outputSchema: { type: 'object', required: ['size', 'created', 'modified', 'accessed', 'isDirectory', 'isFile', 'permissions'], properties: { size: { type: 'integer' }, isDirectory: { type: 'boolean' }, created: { type: 'string' } } },
  });
  // The tree as the client gets it (an array root, wrapped for the 2025-11-25 client, as is at 2026-07-28).
  const tree = CALLS.findIndex((c) => c.tool === 'directory_tree' && c.arguments?.path === join(data, 'sub'));
  expect(walk.typed.results[tree]?.structuredContent).toEqual({ result: [{ name: 'b.txt', type: 'file' }] });
  expect(walk.typedV2.results[tree]?.structuredContent).toEqual([{ name: 'b.txt', type: 'file' }]);
  const info = CALLS.findIndex((c) => c.tool === 'get_file_info');
  expect(walk.typed.results[info]?.structuredContent).toMatchObject({ size: 6, isDirectory: false, isFile: true });
});
