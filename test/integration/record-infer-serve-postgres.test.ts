/**
 * Record → infer → serve on @modelcontextprotocol/server-postgres 0.6.2 (stdio) against a real PostgreSQL
 * (issue 25): its `query` tool answers each SELECT's rows as JSON text, their keys whatever the query selects.
 * Inferred from a few different queries, the entry must not be the merge of the columns sampled (with nested
 * `required`), which would fail the next query: infer sees rows whose keys change between samples and
 * proposes rows of any keys, so a query it never saw validates too.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';
import { ensureBuilt } from '../helpers/cli.js';
import { recordInferServe, type ScriptedCall } from '../helpers/record-infer.js';

const SERVER = fileURLToPath(new URL('../../node_modules/server-postgres-0-6/dist/index.js', import.meta.url));

let pg: Postgres;
beforeAll(async () => {
  await ensureBuilt();
  pg = await startPostgres();
  await pg.sql("CREATE TABLE users (id int PRIMARY KEY, name text, email text); INSERT INTO users VALUES (1, 'Ada', 'ada@example.com'), (2, 'Grace', NULL);");
}, 120_000);
afterAll(() => pg?.stop());

const CALLS: readonly ScriptedCall[] = [
  { tool: 'query', arguments: { sql: 'SELECT id, name FROM users ORDER BY id' } },
  { tool: 'query', arguments: { sql: 'SELECT count(*) AS n FROM users' } },
  { tool: 'query', arguments: { sql: 'SELECT email FROM users WHERE id = 1' } },
];

it('query is typed so that any SELECT validates, one it never saw included', async () => {
  const walk = await recordInferServe('pg', () => ({ command: process.execPath, args: [SERVER, pg.url] }), CALLS);
  expect(walk.inferred.query).toEqual({ extract: { format: 'json' }, outputSchema: { type: 'array', items: { type: 'object' } } });
  expect(walk.inferOut).toMatch(/query-style: the rows' keys differ between samples/);
  // Every recorded call, typed: structuredContent, no error.
  for (const r of walk.typed.results) expect([r.isError ?? false, r.structuredContent !== undefined]).toEqual([false, true]);
  // A query never recorded: other columns, a json value.
  const client = new Client({ name: 'fresh', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(walk.gateway.url('/pg/mcp'))));
  try {
    await client.listTools();
    const fresh = await client.callTool({ name: 'query', arguments: { sql: `SELECT '{"size":1}'::jsonb AS meta` } });
    expect(fresh.isError ?? false).toBe(false);
    expect(fresh.structuredContent).toEqual({ result: [{ meta: { size: 1 } }] });
  } finally {
    await client.close();
  }
});
