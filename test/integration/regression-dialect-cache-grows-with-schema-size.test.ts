/**
 * Regression: a client profile's `schemaDialect: 2020-12` remembered each distinct rewritten schema keyed by its
 * whole JSON text, a thousand of them whatever their size: an upstream listing a new 1 MiB draft-07 schema each
 * time grew the gateway by ~2.7 MiB a listing (150 listings: +400 MB RSS). Rewrites are remembered by a digest
 * of the text, and only for schemas of at most 64 Ki characters; a longer one is rewritten on each listing.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { tempFiles } from '../unit/config/helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap after a full collection, in a later task. */
async function heapAfterGc(): Promise<number> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const LISTINGS = 40;
const SCHEMA_CHARS = 1024 * 1024;

describe('regression: remembered 2020-12 rewrites grew with the schemas an upstream listed', () => {
  it(`${LISTINGS} listings of a new 1 MiB draft-07 schema leave the heap where it was, each rewritten`, async () => {
    let listed = 0;
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        const m = JSON.parse(body.toString('utf8')) as { id?: number; method: string };
        if (m.id === undefined) return void res.writeHead(202).end();
        const result =
          m.method === 'initialize'
            ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'u', version: '1' } }
            : { tools: [{ name: 't', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', description: `${++listed}-${'d'.repeat(SCHEMA_CHARS)}`, definitions: { x: { type: 'string' } }, properties: { a: { $ref: '#/definitions/x' } } } }] };
        res.writeHead(200, { 'content-type': 'application/json', ...(m.method === 'initialize' && { 'mcp-session-id': 'up-session' }) }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      });
    });
    const file = join(await tempFiles({}), 'gateway.yaml');
    await writeFile(file, `clients:\n  - name: modern\n    match: { name: modern-host }\n    schemaDialect: 2020-12\nupstreams:\n  remote:\n    url: ${up.origin}/mcp\n`);
    const gateway = await startGateway(await loadConfig(file));
    let session: string | undefined;
    const post = async (message: object): Promise<string> => {
      const answer = await fetch(gateway.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(session !== undefined && { 'mcp-session-id': session }) },
        body: JSON.stringify(message),
      });
      expect(answer.status).toBeLessThan(300);
      session ??= answer.headers.get('mcp-session-id') ?? undefined;
      return answer.text();
    };
    await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'modern-host', version: '1' } } });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const list = async (id: number): Promise<void> => {
      const text = await post({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
      // Rewritten for the profile every time.
      expect(text).toContain('"$ref":"#/$defs/x"');
    };
    await list(1);
    const before = await heapAfterGc();
    for (let i = 0; i < LISTINGS; i++) await list(2 + i);
    const grown = (await heapAfterGc()) - before;
    // Remembered whole, each listing kept ~2 MiB (its text as the key, its rewrite): 80 MiB here.
    expect(grown, `heap grew ${Math.round(grown / 1024 / 1024)} MiB over ${LISTINGS} listings`).toBeLessThan(16 * 1024 * 1024);
  });
});
