/**
 * A table tool whose schema file `$ref`s another file, through the gateway from a real stdio upstream to a real
 * v1 SDK client: the cells under the referenced file's schema are typed by it. Coercion used to follow only
 * `#/…` refs, so the bundled file's `id: integer` never applied and the client got a tool error.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';
import { tempFiles } from '../unit/config/helpers.js';

it('a v1 client gets table cells typed by a referenced schema file', async () => {
  const dir = await tempFiles({
    'gw.yaml': `upstreams:
  kid:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
    tools:
      echo: { outputSchemaFile: rows.json, extract: { format: table, wrap: rows } }
`,
    'rows.json': JSON.stringify({ type: 'object', properties: { rows: { type: 'array', items: { $ref: 'row.json' } } }, required: ['rows'] }),
    'row.json': JSON.stringify({ type: 'object', properties: { id: { type: 'integer' }, up: { type: 'boolean' } }, required: ['id'] }),
  });
  const gw = await startGateway(await loadConfig(join(dir, 'gw.yaml')));
  const { client } = await connectV1Client(gw.url('/kid/mcp'));
  await client.listTools();
  const result = await client.callTool({ name: 'echo', arguments: { text: '| id | up |\n|---|---|\n| 7 | true |' } });
  expect(result.isError).toBeUndefined();
  expect(result.structuredContent).toEqual({ rows: [{ id: 7, up: true }] });
});
