/**
 * The era proofs' tools: one object root and four others (array, scalar, recursive `$defs` array, typeless
 * `anyOf` root answering an object), each with its schema, the value it answers and the wrapped schema
 * that object-only clients must see (written out by hand, not computed by the code under test). The same
 * tools are served three ways: text only by a v1 SDK server, text only by a v2 SDK server, and declared
 * natively (outputSchema + structuredContent, no text) by a v2 SDK server.
 */
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as V2McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import type { JsonObject } from '../../src/json.js';
import { startV2Server } from './v2-server.js';
import { startV1Server, type V1Server } from './v1-server.js';

/** One tool of the proofs. */
export interface EraTool {
  readonly name: string;
  readonly schema: JsonObject;
  readonly value: unknown;
  /** True when the schema root is `type: "object"` (served as is to every era that has schemas). */
  readonly objectRoot: boolean;
  /** The wrapped schema object-only clients get (`legacyRoots: wrap`); the schema itself for object roots. */
  readonly wrapped: JsonObject;
}

const user = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] };
const weather = { type: 'object', properties: { city: { type: 'string' }, temperature: { type: 'number' } }, required: ['city', 'temperature'] };
const node = {
  type: 'object',
  properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
  required: ['name'],
};
const wrappedNode = {
  type: 'object',
  properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/properties/result/$defs/node' } } },
  required: ['name'],
};
const shape = { anyOf: [{ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, { type: 'array', items: { type: 'integer' } }] };

function wrap(inner: JsonObject, hoisted?: string): JsonObject {
  return { ...(hoisted !== undefined && { $schema: hoisted }), type: 'object', properties: { result: inner }, required: ['result'] };
}

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export const ERA_TOOLS: readonly EraTool[] = [
  { name: 'weather', schema: weather, value: { city: 'Paris', temperature: 12.5 }, objectRoot: true, wrapped: weather },
  { name: 'users', schema: { type: 'array', items: user }, value: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bob' }], objectRoot: false, wrapped: wrap({ type: 'array', items: user }) },
  { name: 'count', schema: { type: 'integer', minimum: 0 }, value: 17, objectRoot: false, wrapped: wrap({ type: 'integer', minimum: 0 }) },
  {
    name: 'tree',
    schema: { $schema: DIALECT, $defs: { node }, type: 'array', items: { $ref: '#/$defs/node' } },
    value: [{ name: 'root', children: [{ name: 'leaf', children: [] }] }],
    objectRoot: false,
    wrapped: wrap({ $defs: { node: wrappedNode }, type: 'array', items: { $ref: '#/properties/result/$defs/node' } }, DIALECT),
  },
  { name: 'shape', schema: shape, value: { a: 1 }, objectRoot: false, wrapped: wrap(shape) },
];

/** The tool by name (throws for an unknown one). */
export function eraTool(name: string): EraTool {
  const tool = ERA_TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`no era tool ${name}`);
  return tool;
}

/** The `tools` section of a config giving every tool its schema. */
export function configuredTools(): Record<string, { outputSchema: JsonObject }> {
  return Object.fromEntries(ERA_TOOLS.map((t) => [t.name, { outputSchema: t.schema }]));
}

/** Pretty JSON text, the way a text-only server answers. */
function text(value: unknown): { content: { type: 'text'; text: string }[] } {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

/** A v1 SDK server (Streamable HTTP, stateful) whose tools answer JSON text and declare no outputSchema. */
export async function startV1TextServer(): Promise<V1Server> {
  return startV1Server({
    build: () => {
      const server = new V1McpServer({ name: 'eras-v1-text', version: '1.0.0' });
      for (const tool of ERA_TOOLS) server.registerTool(tool.name, { description: `${tool.name} as JSON text` }, async () => text(tool.value));
      return server;
    },
  });
}

/** A v2 SDK server (2026-07-28 and stateless 2025 traffic) whose tools answer JSON text only. */
export function startV2TextServer(): ReturnType<typeof startV2Server> {
  return startV2Server(() => {
    const server = new V2McpServer({ name: 'eras-v2-text', version: '2.0.0' });
    for (const tool of ERA_TOOLS) server.registerTool(tool.name, { description: `${tool.name} as JSON text` }, async () => text(tool.value));
    return server;
  });
}

/**
 * A v2 SDK server declaring every schema natively and answering structuredContent with no content at all,
 * so any text block a client sees was added on the way (by the SDK for non-object values, else by us).
 */
export function startV2NativeServer(): ReturnType<typeof startV2Server> {
  return startV2Server(() => {
    const server = new V2McpServer({ name: 'eras-v2-native', version: '2.0.0' });
    for (const tool of ERA_TOOLS) {
      server.registerTool(tool.name, { description: `${tool.name} declared natively`, outputSchema: fromJsonSchema(tool.schema) }, async () => ({
        content: [],
        structuredContent: tool.value as never,
      }));
    }
    return server;
  });
}
