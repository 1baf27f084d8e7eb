/**
 * A reload that changes a tool's outputSchema but keeps its `$id`, with a v1 SDK client connected through it:
 * the client keeps the validator it compiled by `$id` (its ajv asks for the id before compiling), so it
 * validated the new results against the old schema and threw. The gateway now serves changed content under a
 * new id, which the client compiles afresh when it lists the tools again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { startServe } from '../helpers/serve.js';
import { connectV1Client } from '../helpers/v1-client.js';

const ID = 'https://example.com/point.json';
const point = (properties: Record<string, unknown>): string => JSON.stringify({ $id: ID, type: 'object', properties, additionalProperties: false });

it('a v1 client validates against the reloaded schema, not the one it cached under the same $id', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-same-id-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'point.json');
  writeFileSync(file, point({ x: { type: 'integer' }, y: { type: 'integer' } }));
  const gw = await startServe(`
upstreams:
  local:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
    tools:
      echo: { outputSchemaFile: ${JSON.stringify(file)}, extract: { format: json } }
`);
  const { client } = await connectV1Client(`${gw.origin}/local/mcp`);
  const text = '{"x":1,"y":2,"label":"a"}';

  const first = (await client.listTools()).tools.find((t) => t.name === 'echo');
  expect(first?.outputSchema?.$id).toBe(ID);
  expect((await client.callTool({ name: 'echo', arguments: { text } })).isError).toBe(true);

  writeFileSync(file, point({ x: { type: 'integer' }, y: { type: 'integer' }, label: { type: 'string' } }));
  expect(await gw.sighup()).toMatchObject({ ok: true, toolsChanged: ['local'] });
  const second = (await client.listTools()).tools.find((t) => t.name === 'echo');
  expect(second?.outputSchema?.$id).not.toBe(ID);
  const result = await client.callTool({ name: 'echo', arguments: { text } });
  expect(result.structuredContent).toEqual({ x: 1, y: 2, label: 'a' });

  // Back to the first content: its first id again (the client compiled that content under it).
  writeFileSync(file, point({ x: { type: 'integer' }, y: { type: 'integer' } }));
  expect(await gw.sighup()).toMatchObject({ ok: true });
  expect((await client.listTools()).tools.find((t) => t.name === 'echo')?.outputSchema?.$id).toBe(ID);
  expect((await client.callTool({ name: 'echo', arguments: { text } })).isError).toBe(true);
});
