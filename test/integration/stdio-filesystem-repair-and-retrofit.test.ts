/**
 * A real published server that strict clients cannot use today: @modelcontextprotocol/server-filesystem 2025.7.1
 * lists every tool with an inputSchema of `{"$schema": …draft-07}` (no `type: "object"`), so the SDK clients reject
 * the whole tools/list; and it answers JSON trees, `key: value` reports and line listings as text.
 * Through the gateway (config loaded from YAML, the real app), v1 and v2 SDK clients list every tool and get
 * validated structuredContent from a recursive `$defs` schema (json), a `yaml` report and a `regex`/`all` listing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config/load.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const SERVER = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

let dir = '';
let data = '';

const CONFIG = (dataDir: string): string => `
upstreams:
  fs:
    command: node
    args: [${JSON.stringify(SERVER)}, ${JSON.stringify(dataDir)}]
    tools:
      directory_tree:
        outputSchemaFile: tree.schema.json
        extract: { format: json }
      get_file_info:
        outputSchema:
          type: object
          properties:
            size: { type: integer }
            isDirectory: { type: boolean }
            isFile: { type: boolean }
          required: [size, isDirectory, isFile]
        extract: { format: yaml }
      list_directory:
        outputSchema:
          type: array
          items:
            type: object
            properties:
              kind: { enum: [FILE, DIR] }
              name: { type: string }
            required: [kind, name]
        extract:
          format: regex
          pattern: '^\\[(?<kind>FILE|DIR)\\] (?<name>.+)$'
          flags: m
          all: true
`;

const TREE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'array',
  items: { $ref: '#/$defs/entry' },
  $defs: {
    entry: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        type: { enum: ['file', 'directory'] },
        children: { type: 'array', items: { $ref: '#/$defs/entry' } },
      },
      required: ['name', 'type'],
    },
  },
};

const EXPECTED_TREE = [
  { name: 'a.txt', type: 'file' },
  { name: 'sub', type: 'directory', children: [{ name: 'b.txt', type: 'file' }] },
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'retrofit-fs-'));
  data = join(dir, 'data');
  mkdirSync(join(data, 'sub'), { recursive: true });
  writeFileSync(join(data, 'a.txt'), 'hello\n');
  writeFileSync(join(data, 'sub', 'b.txt'), 'x\n');
  writeFileSync(join(dir, 'tree.schema.json'), JSON.stringify(TREE_SCHEMA, null, 2));
  writeFileSync(join(dir, 'gateway.yaml'), CONFIG(data));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function gateway(): Promise<TestGateway> {
  return startGateway(await loadConfig(join(dir, 'gateway.yaml')));
}

describe('server-filesystem 2025.7.1 through the gateway', () => {
  it('is unusable for a strict client directly: the whole tools/list is rejected', async () => {
    const client = new Client({ name: 'direct', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StdioClientTransport({ command: 'node', args: [SERVER, data], stderr: 'ignore' }));
    await expect(client.listTools()).rejects.toThrow();
  });

  it('v1 client: every tool listed with an object inputSchema; json, yaml and regex results validated', async () => {
    const gw = await gateway();
    const client = new Client({ name: 'v1', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/fs/mcp'))));

    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(10);
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
    // The upstream's $schema is kept by the repair.
    expect(tools.find((t) => t.name === 'read_file')?.inputSchema).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#' });
    // An array root is wrapped for this 2025-era session, with the recursive $refs still resolving.
    const tree = tools.find((t) => t.name === 'directory_tree')!;
    expect(tree.outputSchema).toMatchObject({ type: 'object', required: ['result'], properties: { result: { type: 'array' } } });

    const treeResult = await client.callTool({ name: 'directory_tree', arguments: { path: data } });
    expect(treeResult.isError).toBeFalsy();
    expect(treeResult.structuredContent).toEqual({ result: EXPECTED_TREE });

    const info = await client.callTool({ name: 'get_file_info', arguments: { path: join(data, 'a.txt') } });
    expect(info.structuredContent).toMatchObject({ size: 6, isDirectory: false, isFile: true });

    const listing = await client.callTool({ name: 'list_directory', arguments: { path: data } });
    expect(listing.structuredContent).toEqual({ result: [{ kind: 'FILE', name: 'a.txt' }, { kind: 'DIR', name: 'sub' }] });

    // A tool without configuration still works (its inputSchema was repaired).
    const read = await client.callTool({ name: 'read_file', arguments: { path: join(data, 'a.txt') } });
    expect(read.content).toEqual([{ type: 'text', text: 'hello\n' }]);

    const repairs = (await gw.metrics.repairs.get()).values.filter((v) => v.labels.kind === 'input_type_added');
    expect(repairs.map((v) => v.labels.tool)).toContain('read_file');
    expect(gw.logs.some((l) => l.msg === 'tool definition repaired' && l.tool === 'read_file')).toBe(true);
  });

  it('v2 client: lists every tool and gets the same structuredContent', async () => {
    const gw = await gateway();
    const client = new ClientV2({ name: 'v2', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransportV2(new URL(gw.url('/fs/mcp'))));

    const { tools } = await client.listTools();
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
    const treeResult = await client.callTool({ name: 'directory_tree', arguments: { path: data } });
    expect(treeResult.structuredContent).toEqual({ result: EXPECTED_TREE });
    const info = await client.callTool({ name: 'get_file_info', arguments: { path: join(data, 'a.txt') } });
    expect(info.structuredContent).toMatchObject({ size: 6, isFile: true });
  });
});
