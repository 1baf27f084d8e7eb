/**
 * Regression: a schema file with its own `$id`, served whole by one tool and `$ref`'d by another, broke the
 * whole tools/list for v1 clients (`reference "…" resolves to more than one schema`) and made v2 clients
 * refuse the second tool: the copy embedded in the second tool had lost its `$schema` (or gained `$defs`),
 * so one `$id` named two different schemas in the client's one validator. The embedded copy now goes under
 * the gateway's id for the file. It failed only when the tool using the file whole was listed first:
 * `recall` is listed before `echo`.
 */
import { join } from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';
import { tempFiles } from '../unit/config/helpers.js';

const ID = 'https://example.invalid/names.json';

async function gateway() {
  const dir = await tempFiles({
    'gw.yaml': `upstreams:
  kid:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
    tools:
      recall: { outputSchemaFile: names.json }
      echo: { outputSchema: { type: object, properties: { names: { $ref: "names.json" } }, required: [names] } }
`,
    'names.json': JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: ID, type: 'array', items: { $ref: 'name.json' } }),
    'name.json': JSON.stringify({ type: 'string', minLength: 1 }),
  });
  return startGateway(await loadConfig(join(dir, 'gw.yaml')));
}

type Listing = { tools: { name: string; outputSchema?: unknown }[] };
type Called = { structuredContent?: unknown; isError?: boolean };
type Caller = { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<object>; listTools(): Promise<Listing> };

async function exercise(client: Caller, wrapped: boolean): Promise<void> {
  const call = async (name: string, args: Record<string, unknown>): Promise<Called> => (await client.callTool({ name, arguments: args })) as Called;
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names.indexOf('recall')).toBeLessThan(names.indexOf('echo'));
  await call('remember', { value: 'Ada' });
  const recalled = await call('recall', {});
  expect(recalled.structuredContent).toEqual(wrapped ? { result: ['Ada'] } : ['Ada']);
  const echoed = await call('echo', { text: '{"names":["Ada","Grace"]}' });
  expect(echoed.structuredContent).toEqual({ names: ['Ada', 'Grace'] });
  const invalid = await call('echo', { text: '{"names":[""]}' });
  expect(invalid.isError).toBe(true);
}

it('a v1 client lists and calls both tools', async () => {
  const gw = await gateway();
  const { client } = await connectV1Client(gw.url('/kid/mcp'));
  const listed = await client.listTools();
  expect(JSON.stringify(listed.tools.find((t) => t.name === 'recall')?.outputSchema)).toContain(ID);
  expect(JSON.stringify(listed.tools.find((t) => t.name === 'echo')?.outputSchema)).not.toContain(ID);
  await exercise(client, true);
});

it.each([
  ['2025-11-25', {}, true],
  ['2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }, false],
] as const)('a v2 client at %s lists and calls both tools', async (_revision, options, wrapped) => {
  const gw = await gateway();
  const client = new V2Client({ name: 'v2', version: '1.0.0' }, options);
  onTestFinished(() => client.close());
  await client.connect(new V2Transport(new URL(gw.url('/kid/mcp'))));
  await exercise(client, wrapped);
});
