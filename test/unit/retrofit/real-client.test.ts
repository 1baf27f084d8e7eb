/**
 * The pure engine between a real v1 SDK Client and a real SDK Server, joined by in-memory transports and a
 * relay that rewrites responses with rewriteToolsList/rewriteToolCall (what the proxy does over HTTP/stdio).
 * The v1 client validates tools/list strictly and structuredContent against outputSchema, so any shape
 * mistake of the engine makes listTools/callTool throw here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../src/json.js';
import type { ToolConfig } from '../../../src/config/types.js';
import { rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

const TREE = {
  $defs: { node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['name', 'children'] } },
  $ref: '#/$defs/node',
};

/** A text-only upstream (no outputSchema anywhere) plus one tool that declares a native array schema. */
function textOnlyServer(): Server {
  const server = new Server({ name: 'legacy', version: '1.0.0' }, { capabilities: { tools: {} } });
  const tools = [
    { name: 'tree', inputSchema: { type: 'object' } },
    { name: 'count', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } },
    { name: 'ls', inputSchema: { type: 'object' } },
    { name: 'weather', inputSchema: { type: 'object' } },
    { name: 'native_list', inputSchema: { type: 'object' }, outputSchema: { type: 'array', items: { type: 'integer' } } },
  ];
  const texts: Record<string, string[]> = {
    tree: ['Here is the tree:\n```json\n{"name": "/", "children": [{"name": "src", "children": []}]}\n```'],
    count: ['17'],
    ls: ['[FILE] a.txt\n[DIR] src'],
    weather: ['{"city": 3}'],
    native_list: ['[1,2]'],
  };
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }) as never);
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    return { content: (texts[req.params.name] ?? []).map((text) => ({ type: 'text', text })) };
  });
  return server;
}

const CONFIG: Record<string, ToolConfig> = {
  tree: { outputSchema: TREE },
  count: { outputSchema: { type: 'integer' } },
  ls: { outputSchema: { type: 'array', items: { type: 'object', properties: { kind: { type: 'string' }, name: { type: 'string' } } } }, extract: { format: 'regex', pattern: '^\\[(?<kind>\\w+)\\] (?<name>.+)$', flags: 'm', all: true } },
  weather: { outputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Connect client ⇄ relay ⇄ server; `ask` forces the protocol revision the client requests. */
async function connect(ask?: string): Promise<{ client: Client; revision: () => string }> {
  const policy = upstreamWith(CONFIG);
  const [clientSide, relayFront] = InMemoryTransport.createLinkedPair();
  const [relayBack, serverSide] = InMemoryTransport.createLinkedPair();
  const pending = new Map<string | number, { method: string; tool?: string }>();
  let revision = '2025-03-26';
  relayFront.onmessage = (message: JSONRPCMessage) => {
    const m = message as JsonObject;
    if (typeof m.method === 'string' && 'id' in m) {
      const params = (m.params ?? {}) as JsonObject;
      pending.set(m.id as string | number, { method: m.method, ...(typeof params.name === 'string' && { tool: params.name }) });
      if (m.method === 'initialize' && ask) m.params = { ...params, protocolVersion: ask };
    }
    void relayBack.send(m as JSONRPCMessage);
  };
  relayBack.onmessage = (message: JSONRPCMessage) => {
    const m = message as JsonObject;
    const request = 'id' in m && !('method' in m) ? pending.get(m.id as string | number) : undefined;
    if (request && m.result && typeof m.result === 'object') {
      const result = m.result as JsonObject;
      if (request.method === 'initialize') revision = String(result.protocolVersion);
      if (request.method === 'tools/list') m.result = rewriteToolsList(result, policy, revision).result;
      // A v1 server cannot emit array structuredContent; a modern upstream would. Stand in for one here.
      if (request.tool === 'native_list') result.structuredContent = [1, 2];
      if (request.method === 'tools/call' && request.tool) m.result = rewriteToolCall(result, request.tool, policy, revision).result;
    }
    void relayFront.send(m as JSONRPCMessage);
  };
  await relayFront.start();
  await relayBack.start();
  const server = textOnlyServer();
  await server.connect(serverSide);
  const client = new Client({ name: 'strict-v1', version: '1.0.0' });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { client, revision: () => revision };
}

describe('a real v1 SDK client through the engine', () => {
  it('2025-11-25: lists every tool and gets wrapped structuredContent (recursive $defs, scalar, regex, native array)', async () => {
    const { client, revision } = await connect();
    expect(revision()).toBe('2025-11-25');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['tree', 'count', 'ls', 'weather', 'native_list']);
    expect(tools.find((t) => t.name === 'count')?.inputSchema).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' });

    const tree = await client.callTool({ name: 'tree', arguments: {} });
    expect(tree.structuredContent).toEqual({ result: { name: '/', children: [{ name: 'src', children: [] }] } });
    expect((await client.callTool({ name: 'count', arguments: {} })).structuredContent).toEqual({ result: 17 });
    expect((await client.callTool({ name: 'ls', arguments: {} })).structuredContent).toEqual({ result: [{ kind: 'FILE', name: 'a.txt' }, { kind: 'DIR', name: 'src' }] });
    expect((await client.callTool({ name: 'native_list', arguments: {} })).structuredContent).toEqual({ result: [1, 2] });
  });

  it('a failure arrives as an isError result with pointer-level reasons, never a thrown error', async () => {
    const { client } = await connect();
    await client.listTools();
    const result = await client.callTool({ name: 'weather', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('/city must be string');
  });

  it.each(['2025-06-18', '2025-03-26'])('pinned to %s', async (ask) => {
    const { client, revision } = await connect(ask);
    expect(revision()).toBe(ask);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(5);
    const tree = await client.callTool({ name: 'tree', arguments: {} });
    if (ask === '2025-03-26') {
      expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
      expect(tree.structuredContent).toBeUndefined();
      expect(JSON.stringify(tree.content)).toContain('children');
    } else {
      expect(tree.structuredContent).toEqual({ result: { name: '/', children: [{ name: 'src', children: [] }] } });
    }
  });
});
