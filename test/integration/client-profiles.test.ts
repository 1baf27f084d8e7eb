/**
 * Client profiles (issue 26): one gateway, one upstream (a real v1 SDK server over Streamable HTTP answering
 * with raw definitions: a text-JSON tool the config types, a tool answering structuredContent only under a
 * draft-07 schema, a tool whose inputSchema root is a draft-07 anyOf), and real clients that say different
 * things of themselves in clientInfo, each served what its profile says:
 * - no profile: what the gateway serves today (a structured-only result gets its JSON as text for every
 *   client already);
 * - `strip` (a strict v1 client): no outputSchema listed, no structuredContent, never a throw, and the
 *   structured-only result as JSON text;
 * - `textFallback` (a v2 client at 2026-07-28, whose client info travels in each request's `_meta`): a result
 *   whose text is prose gains a text block equal to its JSON, and one whose text is that JSON gains nothing;
 * - `schemaDialect: 2020-12` + `inputSchemaRoot: object`: 2020-12 schemas, one object root.
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { JsonObject } from '../../src/json.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { REPO } from '../helpers/stdio-gateway.js';
import { startV1Server } from '../helpers/v1-server.js';
import { tempFiles } from '../unit/config/helpers.js';

const D7 = 'http://json-schema.org/draft-07/schema#';
const STRUCTURED_SCHEMA = {
  $schema: D7,
  type: 'object',
  definitions: { city: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  properties: { cities: { type: 'array', items: { $ref: '#/definitions/city' } } },
  required: ['cities'],
};
const TOOLS = [
  { name: 'weather', description: 'JSON as text', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'cities', description: 'structuredContent only', inputSchema: { type: 'object' }, outputSchema: STRUCTURED_SCHEMA },
  { name: 'summary', description: 'prose and structuredContent', inputSchema: { type: 'object' }, outputSchema: STRUCTURED_SCHEMA },
  {
    name: 'lookup',
    description: 'by query or by id',
    inputSchema: {
      $schema: D7,
      anyOf: [
        { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      ],
    },
  },
];
const CITIES = { cities: [{ name: 'Paris' }, { name: 'Oslo' }] };
const RESULTS: Record<string, JsonObject> = {
  weather: { content: [{ type: 'text', text: '{"t":17}' }] },
  cities: { content: [], structuredContent: CITIES },
  summary: { content: [{ type: 'text', text: 'Two cities.' }], structuredContent: CITIES },
  lookup: { content: [{ type: 'text', text: 'found it' }] },
};

let gateway: TestGateway;
let url: string;

/** A fresh upstream and gateway for each test (both closed when it ends). */
async function setup(): Promise<void> {
  const upstream = await startV1Server({
    build: () => {
      const server = new McpServer({ name: 'profiles-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }) as never);
      server.server.setRequestHandler(CallToolRequestSchema, async (req) => RESULTS[req.params.name] as never);
      return server;
    },
  });
  const dir = await tempFiles({});
  const file = join(dir, 'gateway.yaml');
  await writeFile(
    file,
    `clients:
  - name: plain
    match: { name: "plain-*" }
    outputSchema: strip
  - name: fallback
    match: { name: codex-like, version: ">=0.9 <2", revision: [2026-07-28, 2025-11-25] }
    textFallback: true
  - name: validator-2020
    match: { name: strict-2020 }
    schemaDialect: 2020-12
    inputSchemaRoot: object
upstreams:
  up:
    url: ${upstream.url}
    tools:
      weather:
        extract: { format: json }
        outputSchema: { type: object, properties: { t: { type: integer } }, required: [t] }
`,
  );
  gateway = await startGateway(await loadConfig(file));
  url = gateway.url('/up/mcp');
}

async function v1(name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const byName = (tools: readonly JsonObject[]): Record<string, JsonObject> => Object.fromEntries(tools.map((t) => [t.name as string, t]));

describe('client profiles through one gateway', () => {
  beforeEach(setup);

  it('no profile: the configured schema and the upstream\'s own, as the gateway serves them without clients:', async () => {
    const client = await v1('some-other-client');
    const tools = byName((await client.listTools()).tools as unknown as JsonObject[]);
    expect(tools.weather?.outputSchema).toEqual({ type: 'object', properties: { t: { type: 'integer' } }, required: ['t'] });
    expect(tools.cities?.outputSchema).toEqual(STRUCTURED_SCHEMA);
    expect((await client.callTool({ name: 'weather', arguments: {} })).structuredContent).toEqual({ t: 17 });
    const cities = await client.callTool({ name: 'cities', arguments: {} });
    expect(cities).toMatchObject({ content: [{ type: 'text', text: JSON.stringify(CITIES) }], structuredContent: CITIES });
    expect(await client.callTool({ name: 'summary', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'Two cities.' }], structuredContent: CITIES });
  });

  it('strip: a strict v1 client sees no schema, no structuredContent, the text as it was, and never throws', async () => {
    const client = await v1('plain-agent');
    const tools = (await client.listTools()).tools as unknown as JsonObject[];
    expect(tools.filter((t) => t.outputSchema !== undefined)).toEqual([]);
    const weather = await client.callTool({ name: 'weather', arguments: {} });
    expect(weather).toEqual({ content: [{ type: 'text', text: '{"t":17}' }] });
    const cities = await client.callTool({ name: 'cities', arguments: {} });
    expect(cities).toEqual({ content: [{ type: 'text', text: JSON.stringify(CITIES) }] });
    const profiled = (await gateway.metrics.profiled.get()).values.filter((v) => v.labels.profile === 'plain').map((v) => `${v.labels.method} ${v.value}`);
    expect(profiled.sort()).toEqual(['tools/call 2', 'tools/list 1']);
    // The request log lines name the profile too, and initialize's names the client as it named itself.
    expect(gateway.logs.filter((l) => l.msg === 'request' && l.method === 'initialize').map((l) => l.client)).toEqual(['plain-agent@1.0.0']);
    expect(gateway.logs.filter((l) => l.msg === 'request' && l.profile === 'plain').map((l) => l.method).sort()).toEqual(['tools/call', 'tools/call', 'tools/list']);
  });

  it('textFallback: a v2 client at 2026-07-28 gets a text block equal to the JSON beside prose, once', async () => {
    const client = new V2Client({ name: 'codex-like', version: '1.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    onTestFinished(() => client.close());
    await client.connect(new V2Transport(new URL(url)));
    await client.listTools();
    const summary = (await client.callTool({ name: 'summary', arguments: {} })) as unknown as JsonObject;
    expect(summary.structuredContent).toEqual(CITIES);
    expect(summary.content).toEqual([{ type: 'text', text: 'Two cities.' }, { type: 'text', text: JSON.stringify(CITIES) }]);
    const cities = (await client.callTool({ name: 'cities', arguments: {} })) as unknown as JsonObject;
    expect(cities.content).toEqual([{ type: 'text', text: JSON.stringify(CITIES) }]);
    // The text already is the value's JSON: nothing is added twice.
    const weather = (await client.callTool({ name: 'weather', arguments: {} })) as unknown as JsonObject;
    expect(weather.content).toEqual([{ type: 'text', text: '{"t":17}' }]);
    expect(weather.structuredContent).toEqual({ t: 17 });
    expect(gateway.logs.some((l) => l.msg === 'retrofit' && l.profile === 'fallback')).toBe(true);
    expect(gateway.logs.filter((l) => l.msg === 'request' && l.profile === 'fallback').map((l) => l.method)).toContain('tools/call');
  });

  it('a version outside the range gets no profile', async () => {
    const client = new Client({ name: 'codex-like', version: '2.1.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect((await client.callTool({ name: 'summary', arguments: {} })).content).toEqual([{ type: 'text', text: 'Two cities.' }]);
  });

  it('schemaDialect 2020-12 and inputSchemaRoot object: 2020-12 definitions, one object root, the arguments as sent', async () => {
    const client = await v1('strict-2020');
    const tools = byName((await client.listTools()).tools as unknown as JsonObject[]);
    expect(tools.cities?.outputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { city: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      properties: { cities: { type: 'array', items: { $ref: '#/$defs/city' } } },
      required: ['cities'],
    });
    expect(tools.lookup?.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { q: { type: 'string' }, id: { type: 'integer' } },
    });
    expect((await client.callTool({ name: 'cities', arguments: {} })).structuredContent).toEqual(CITIES);
    expect((await client.callTool({ name: 'lookup', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'found it' }]);
  });
});

describe('client profiles in front of a stdio upstream (sessions the gateway holds)', () => {
  it('strip for one v1 client, the configured schema for another, through the same gateway', async () => {
    const dir = await tempFiles({});
    const file = join(dir, 'gateway.yaml');
    const demo = resolve(REPO, 'dist/demo/server.js');
    await writeFile(file, `clients:\n  - name: plain\n    match: { name: "plain-*" }\n    outputSchema: strip\nupstreams:\n  weather:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(demo)}]\n    tools:\n      get_temperature:\n        outputSchema: { type: number }\n`);
    const gw = await startGateway(await loadConfig(file));
    const connect = async (name: string): Promise<Client> => {
      const client = new Client({ name, version: '1.0.0' });
      onTestFinished(() => client.close());
      await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/weather/mcp'))));
      return client;
    };
    const plain = await connect('plain-stdio');
    const typed = await connect('typed-stdio');
    const listed = async (c: Client) => byName((await c.listTools()).tools as unknown as JsonObject[]).get_temperature?.outputSchema;
    expect(await listed(plain)).toBeUndefined();
    expect(await listed(typed)).toEqual({ type: 'object', properties: { result: { type: 'number' } }, required: ['result'] });
    const args = { name: 'get_temperature', arguments: { city: 'Paris' } };
    expect((await plain.callTool(args)).structuredContent).toBeUndefined();
    expect(typeof ((await typed.callTool(args)).structuredContent as { result?: unknown }).result).toBe('number');
    expect(gw.logs.filter((l) => l.msg === 'request' && l.profile === 'plain').map((l) => l.method).sort()).toEqual(['tools/call', 'tools/list']);
  });
});
