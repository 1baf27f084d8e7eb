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

const CALLS: readonly ScriptedCall[] = [
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

it('record → infer → serve: structured answers become validated structuredContent', async () => {
  const walk = await recordInferServe('fs', () => ({ command: process.execPath, args: [SERVER, data] }), CALLS);
  expect(walk.files).toEqual({ directory_tree: 2, get_file_info: 2, list_allowed_directories: 1, list_directory: 2, read_file: 1, read_multiple_files: 1, search_files: 1 });
  // Listings, file contents and search hits are prose to infer: proposed as strings (a regex would read
  // list_directory into entries: see the README).
  expect(Object.keys(walk.inferred).sort()).toEqual(['directory_tree', 'get_file_info', 'list_allowed_directories', 'list_directory', 'read_file', 'read_multiple_files', 'search_files']);
  for (const prose of ['list_allowed_directories', 'list_directory', 'read_file', 'read_multiple_files', 'search_files']) expect(walk.inferred[prose]).toEqual({ outputSchema: { type: 'string' } });
  expect(walk.inferOut).toContain('# list_directory: 2 samples of plain prose: proposed as a string (the text as it is)\n');
  // get_file_info's times move between the sessions (the first one read a.txt).
  expectTyped(walk, CALLS, ['get_file_info']);

  const entry = { type: 'object', required: ['name', 'type'] };
  expect(walk.inferred.directory_tree).toMatchObject({ extract: { format: 'json' }, outputSchema: { type: 'array', items: { ...entry, properties: { children: { type: 'array', items: entry } } } } });
  expect(walk.inferred.get_file_info).toMatchObject({
    extract: { format: 'yaml' },
    outputSchema: { type: 'object', required: ['size', 'created', 'modified', 'accessed', 'isDirectory', 'isFile', 'permissions'], properties: { size: { type: 'integer' }, isDirectory: { type: 'boolean' }, created: { type: 'string' } } },
  });
  // The tree as the client gets it (an array root, wrapped for this 2025-11-25 client).
  expect(walk.typed.results[2]?.structuredContent).toEqual({ result: [{ name: 'b.txt', type: 'file' }] });
  expect(walk.typed.results[3]?.structuredContent).toMatchObject({ size: 6, isDirectory: false, isFile: true });
});
