/**
 * Regression: two tools whose schema files refer to each other (forest.json's items are node.json, a node's
 * `kids` a forest.json) made the config fail to load. Each tool's bundle put its own file at the root under
 * the gateway's id for that file, with the other embedded: the id of forest.json named the root of one tool
 * (with `$defs`) and an embedded copy in the other (without), and the load refused the clash — rightly, since
 * a client compiles every tool's schema in one validator. Now such a root file is embedded as well and the
 * files refer to that copy, so every id names one schema. Served to real v1 and v2 clients through the
 * gateway, which validate both tools' structuredContent.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { REPO } from '../helpers/stdio-gateway.js';
import { tempFiles } from '../unit/config/helpers.js';

const SERVER = join(REPO, 'test/fixtures/servers/canned-results-server.mjs');
const FOREST = [{ name: 'a', kids: [{ name: 'b', kids: [] }] }];
const NODE = { name: 'root', kids: [{ name: 'leaf' }] };
const RESULTS = { forest: [{ content: [{ type: 'text', text: JSON.stringify(FOREST) }] }], node: [{ content: [{ type: 'text', text: JSON.stringify(NODE) }] }] };

it('two tools whose schema files refer to each other load, and both validate in one client', async () => {
  const dir = await tempFiles({
    'forest.json': JSON.stringify({ type: 'array', items: { $ref: 'node.json' } }),
    'node.json': JSON.stringify({ type: 'object', properties: { name: { type: 'string' }, kids: { $ref: 'forest.json' } }, required: ['name'] }),
    'gateway.yaml': JSON.stringify({
      upstreams: {
        trees: {
          command: process.execPath,
          args: [SERVER],
          env: { CANNED_RESULTS: JSON.stringify(RESULTS) },
          tools: { forest: { outputSchemaFile: 'forest.json' }, node: { outputSchemaFile: 'node.json' } },
        },
      },
    }),
  });
  const gateway = await startGateway(await loadConfig(join(dir, 'gateway.yaml')));
  const url = new URL(gateway.url('/trees/mcp'));

  const v1 = new Client({ name: 'strict-v1', version: '1.0.0' });
  onTestFinished(() => v1.close());
  await v1.connect(new StreamableHTTPClientTransport(url));
  expect((await v1.listTools()).tools.map((t) => [t.name, t.outputSchema !== undefined])).toEqual([['forest', true], ['node', true]]);
  // forest's array root is wrapped as {result} for a 2025-11-25 client.
  expect((await v1.callTool({ name: 'forest', arguments: {} })).structuredContent).toEqual({ result: FOREST });
  expect((await v1.callTool({ name: 'node', arguments: {} })).structuredContent).toEqual(NODE);

  const v2 = new V2Client({ name: 'strict-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  onTestFinished(() => v2.close());
  await v2.connect(new V2Transport(url));
  expect((await v2.listTools()).tools.map((t) => [t.name, t.outputSchema !== undefined])).toEqual([['forest', true], ['node', true]]);
  expect((await v2.callTool({ name: 'forest', arguments: {} })).structuredContent).toEqual(FOREST);
  expect((await v2.callTool({ name: 'node', arguments: {} })).structuredContent).toEqual(NODE);
});
