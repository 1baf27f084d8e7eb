/**
 * Regression F3 (review D): a client profile with `schemaDialect: 2020-12` in front of a tool whose draft-07
 * outputSchema `$ref`s another schema file. The loader embeds the file under `definitions` with an absolute
 * `$id` and points the ref at `…/common.json#/definitions/count`; the rewrite renamed the embedded
 * `definitions` to `$defs` but not the ref, so the real v2 SDK client (2026-07-28 and 2025-11-25) threw
 * "Tool 'echo' has an invalid outputSchema: can't resolve reference …" on every call. Now the ref follows
 * the rename and the client validates the result; a v1 client without the profile still gets draft-07.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { JsonObject } from '../../src/json.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';
import { startV1Server } from '../helpers/v1-server.js';
import { tempFiles } from '../unit/config/helpers.js';

const D7 = 'http://json-schema.org/draft-07/schema#';

async function setup(): Promise<TestGateway> {
  const upstream = await startV1Server();
  const dir = await tempFiles({ 'common.json': JSON.stringify({ $schema: D7, definitions: { count: { type: 'integer', minimum: 0 } } }) });
  const file = join(dir, 'gateway.yaml');
  const schema = { $schema: D7, type: 'object', properties: { n: { $ref: 'common.json#/definitions/count' } }, required: ['n'] };
  await writeFile(
    file,
    `clients:
  - name: strict-2020
    match: { name: strict-2020 }
    schemaDialect: 2020-12
upstreams:
  up:
    url: ${upstream.url}
    tools:
      echo:
        extract: { format: json }
        outputSchema: ${JSON.stringify(schema)}
`,
  );
  return startGateway(await loadConfig(file));
}

describe('regression F3: schemaDialect 2020-12 and a draft-07 outputSchema that $refs another file', () => {
  it.each([
    ['2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
    ['2025-11-25', {}],
  ] as const)('a v2 client at %s compiles the served schema and gets the structured result', async (_revision, options) => {
    const gateway = await setup();
    const client = new V2Client({ name: 'strict-2020', version: '1.0.0' }, options);
    onTestFinished(() => client.close());
    await client.connect(new V2Transport(new URL(gateway.url('/up/mcp'))));
    const listed = (await client.listTools()).tools.find((t) => t.name === 'echo')?.outputSchema as JsonObject | undefined;
    // Before: "Tool 'echo' has an invalid outputSchema: can't resolve reference …/common.json#/definitions/count".
    const ok = await client.callTool({ name: 'echo', arguments: { text: '{"n": 3}' } });
    expect(ok.structuredContent).toEqual({ n: 3 });
    expect(listed?.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(JSON.stringify(listed)).toMatch(/"\$ref":"https:\/\/mcp-retrofit\.invalid\/schema-files\/[0-9a-f]{16}\/common\.json#\/\$defs\/count"/);
    const bad = await client.callTool({ name: 'echo', arguments: { text: '{"n": -1}' } });
    expect(bad.isError).toBe(true);
  });

  it('a v1 client without the profile gets the draft-07 schema, and the same result', async () => {
    const gateway = await setup();
    const { client } = await connectV1Client(gateway.url('/up/mcp'));
    const listed = (await client.listTools()).tools.find((t) => t.name === 'echo')?.outputSchema;
    expect(listed?.$schema).toBe(D7);
    expect(JSON.stringify(listed)).toContain('common.json#/definitions/count');
    expect((await client.callTool({ name: 'echo', arguments: { text: '{"n": 3}' } })).structuredContent).toEqual({ n: 3 });
  });
});
