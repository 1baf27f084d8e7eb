/**
 * Schema files that `$ref` other schema files, served to a real v1 SDK client through the gateway (stdio
 * fixture upstream): the client compiles the bundled outputSchemas it is shown (object root as is, array root
 * wrapped for 2025-11-25) and accepts the structuredContent validated against them. The files are removed
 * after loading: nothing reads them at request time.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';
import { tempFiles } from '../unit/config/helpers.js';

it('a v1 client resolves the bundled schemas and gets structuredContent that satisfies them', async () => {
  const dir = await tempFiles({
    'gw.yaml': `upstreams:
  kid:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
    tools:
      echo: { outputSchemaFile: schemas/city.json, extract: { format: json } }
      recall: { outputSchemaFile: schemas/cities.yaml }
`,
    'schemas/city.json': JSON.stringify({ type: 'object', properties: { city: { $ref: 'common/defs.yaml#/$defs/name' } }, required: ['city'] }),
    'schemas/cities.yaml': 'type: array\nitems: { $ref: "./common/defs.yaml#/$defs/name" }\n',
    'schemas/common/defs.yaml': '$defs:\n  name: { type: string, minLength: 1 }\n',
  });
  const loaded = await loadConfig(join(dir, 'gw.yaml'));
  await rm(join(dir, 'schemas'), { recursive: true, force: true });
  const gw = await startGateway(loaded);
  const { client } = await connectV1Client(gw.url('/kid/mcp'));

  const tools = (await client.listTools()).tools;
  const echo = tools.find((t) => t.name === 'echo');
  const recall = tools.find((t) => t.name === 'recall');
  expect(JSON.stringify(echo?.outputSchema)).toContain('https://mcp-retrofit.invalid/schema-files/');
  expect(recall?.outputSchema).toMatchObject({ type: 'object', required: ['result'] });

  const good = await client.callTool({ name: 'echo', arguments: { text: '{"city":"Oslo"}' } });
  expect(good.structuredContent).toEqual({ city: 'Oslo' });
  const bad = await client.callTool({ name: 'echo', arguments: { text: '{"city":""}' } });
  expect(bad.isError).toBe(true);
  await client.callTool({ name: 'remember', arguments: { value: 'Paris' } });
  expect((await client.callTool({ name: 'recall', arguments: {} })).structuredContent).toEqual({ result: ['Paris'] });
});
