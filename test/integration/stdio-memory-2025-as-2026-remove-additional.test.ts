/**
 * @modelcontextprotocol/server-memory 2025.8.4 (an SDK 1.0.1 server: text only, initialize answered with
 * 2024-11-05) behind the gateway, configured with the output schemas its 2026.8.31 release declares and
 * `removeAdditional: true`: call for call, the structuredContent a client gets equals what the native
 * 2026.8.31 release answers. The old release writes `"type": "entity"` / `"type": "relation"` into what it
 * reads back, which the new schemas forbid (additionalProperties: false); its create/add tools answer bare
 * arrays, which `wrap` puts under the key the new release uses. The delete_* tools are left out: 2026.8.31
 * answers `{success: true, message}`, and no text of 2025.8.4 carries that `success`.
 *
 * Until protocol bridging (issue 14) lands, the gateway answers a 2025-11-25 client 2024-11-05 for such a
 * server and strips outputSchema/structuredContent for the session: the assertions marked BRIDGING wait for
 * it. Everything before them holds today (servers start, calls go through, text arrives), and the engine,
 * given the very texts the old release sent, already produces the new release's values.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { Json, JsonObject } from '../../src/json.js';
import type { ToolConfig } from '../../src/config/types.js';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { upstreamWith } from '../unit/retrofit/helpers.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const OLD = fileURLToPath(new URL('../../node_modules/server-memory-2025/dist/index.js', import.meta.url));
const NEW = fileURLToPath(new URL('../../node_modules/server-memory-2026/dist/index.js', import.meta.url));

/** The calls, in order, each against a fresh memory file per server. */
const CALLS: readonly { readonly name: string; readonly arguments: JsonObject }[] = [
  { name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }, { name: 'Babbage', entityType: 'person', observations: [] }] } },
  { name: 'create_relations', arguments: { relations: [{ from: 'Ada', to: 'Babbage', relationType: 'worked with' }] } },
  { name: 'add_observations', arguments: { observations: [{ entityName: 'Babbage', contents: ['designed the Analytical Engine'] }] } },
  { name: 'read_graph', arguments: {} },
  // Both releases agree on the relations they return when every matched entity is in the result; for a
  // partial match 2026.8.31 also returns relations to entities left out (a change of the server, not of
  // the shape), so the calls match both entities.
  { name: 'search_nodes', arguments: { query: 'person' } },
  { name: 'open_nodes', arguments: { names: ['Ada', 'Babbage'] } },
];
/** Where 2026.8.31 puts what 2025.8.4 answers as a bare array. */
const WRAP: Readonly<Record<string, string>> = { create_entities: 'entities', create_relations: 'relations', add_observations: 'results' };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function memoryFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-memory-'));
  dirs.push(dir);
  return join(dir, 'memory.jsonl');
}

type CallResult = { content?: unknown; structuredContent?: unknown; isError?: boolean };
interface Session {
  listTools(): Promise<{ tools: { name: string; outputSchema?: unknown }[] }>;
  callTool(call: { name: string; arguments: JsonObject }): Promise<CallResult>;
}

/** The native 2026.8.31 release, direct over stdio: its tools' schemas and its answers, call by call. */
async function native(): Promise<{ schemas: Map<string, JsonObject>; answers: CallResult[] }> {
  const client = new Client({ name: 'memory-2026', version: '1.0.0' });
  try {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [NEW], env: { MEMORY_FILE_PATH: memoryFile() }, stderr: 'ignore' }));
    const { tools } = await client.listTools();
    const schemas = new Map(tools.map((t) => [t.name, t.outputSchema as JsonObject]));
    const answers: CallResult[] = [];
    for (const call of CALLS) answers.push((await client.callTool(call)) as CallResult);
    return { schemas, answers };
  } finally {
    await client.close();
  }
}

function toolsFor(schemas: ReadonlyMap<string, JsonObject>): Record<string, ToolConfig> {
  const tools: Record<string, ToolConfig> = {};
  for (const { name } of CALLS) {
    const wrap = WRAP[name];
    tools[name] = { outputSchema: schemas.get(name)!, removeAdditional: true, extract: wrap ? { format: 'json', wrap } : { format: 'json' } };
  }
  return tools;
}

function textOf(result: CallResult): string {
  const block = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  return block?.type === 'text' ? (block.text ?? '') : '';
}

async function scenario(connect: (url: string) => Promise<Session & { close(): Promise<void> }>): Promise<void> {
  const reference = await native();
  // The premise: the new release forbids what the old one writes.
  expect(JSON.stringify(reference.schemas.get('read_graph'))).toContain('"additionalProperties":false');
  const tools = toolsFor(reference.schemas);
  const gw = await startStdioGateway({ name: 'memory', command: process.execPath, args: [OLD], env: { MEMORY_FILE_PATH: memoryFile() }, tools });
  const session = await connect(gw.url);
  try {
    const listed = (await session.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(CALLS.map((c) => c.name)));
    const policy = upstreamWith(tools);
    const answers: CallResult[] = [];
    for (const call of CALLS) answers.push(await session.callTool(call));
    for (const [i, call] of CALLS.entries()) {
      const got = answers[i]!;
      const want = reference.answers[i]!.structuredContent as Json;
      expect(got.isError, call.name).toBeFalsy();
      // Today: the old release's text arrives as it sent it, and equals the new release's value once retrofitted.
      expect(JSON.parse(textOf(got)), call.name).toBeDefined();
      const engine = rewriteToolCall({ content: got.content as JsonObject[] }, call.name, policy, '2025-11-25');
      expect(engine.outcome.outcome, `${call.name}: ${engine.outcome.reasons?.join('; ')}`).toBe('extracted');
      expect(engine.result.structuredContent, call.name).toEqual(want);
    }
    expect(textOf(answers[3]!)).toContain('"type": "entity"');
    // BRIDGING: the client is shown the new release's schemas and gets its values, call for call.
    expect(listed.find((t) => t.name === 'read_graph')?.outputSchema).toEqual(reference.schemas.get('read_graph'));
    for (const [i, call] of CALLS.entries()) expect(answers[i]!.structuredContent, call.name).toEqual(reference.answers[i]!.structuredContent);
  } finally {
    await session.close();
  }
}

describe('server-memory 2025.8.4 served as 2026.8.31 (removeAdditional: true)', () => {
  it('v1 client: structuredContent equals the 2026.8.31 release, call for call (BRIDGING)', async () => {
    await scenario(async (url) => {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const client = new Client({ name: 'memory-v1', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return {
        listTools: () => client.listTools(),
        callTool: async (call) => (await client.callTool(call)) as CallResult,
        close: () => client.close(),
      };
    });
  });

  it('v2 client: the same, call for call (BRIDGING)', async () => {
    await scenario(async (url) => {
      const client = new ClientV2({ name: 'memory-v2', version: '1.0.0' });
      await client.connect(new TransportV2(new URL(url)));
      return {
        listTools: async () => (await client.listTools()) as { tools: { name: string; outputSchema?: unknown }[] },
        callTool: async (call) => (await client.callTool(call)) as CallResult,
        close: () => client.close(),
      };
    });
  });
});
