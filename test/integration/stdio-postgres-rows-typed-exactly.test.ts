/**
 * @modelcontextprotocol/server-postgres 0.6.2 (stdio; an SDK 1.0.1 server, so it answers initialize with
 * 2024-11-05) behind the gateway, against a real PostgreSQL started by the test. Its `query` tool answers
 * `JSON.stringify(rows)` as text; node-postgres sends int8 and numeric as strings, so an int8 beyond 2^53,
 * a numeric with 20 digits and a text with leading zeros arrive exactly, and must stay exactly that in
 * structuredContent, typed through the gateway for v1 and v2 SDK clients. An integer schema for the int8
 * column must fail with the reason, never produce 9007199254740992.
 *
 * Until protocol bridging (issue 14) lands, the gateway answers such a client 2024-11-05 and strips
 * outputSchema/structuredContent for the session: the assertions marked BRIDGING wait for it. Everything
 * before them (server started, calls through, text exact) holds today, and the engine-level assertions
 * prove the retrofit of the very texts the server sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../../src/json.js';
import type { ToolConfig } from '../../src/config/types.js';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { upstreamWith } from '../unit/retrofit/helpers.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';
import { connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

const SERVER = fileURLToPath(new URL('../../node_modules/server-postgres-0-6/dist/index.js', import.meta.url));

const ROW_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^-?[0-9]+$' },
    small: { type: 'integer' },
    amount: { type: 'string' },
    zip: { type: 'string' },
    day: { type: 'string', format: 'date-time' },
    ok: { type: 'boolean' },
  },
  required: ['id', 'small', 'amount', 'zip', 'day', 'ok'],
  additionalProperties: false,
};
const TOOLS: Record<string, ToolConfig> = {
  query: { outputSchema: { type: 'object', properties: { rows: { type: 'array', items: ROW_SCHEMA } }, required: ['rows'] }, extract: { format: 'json', wrap: 'rows' } },
};
/** The same column declared as an integer: the engine must refuse it, not round it. */
const INTEGER_ID: Record<string, ToolConfig> = {
  query: { outputSchema: { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } } } }, extract: { format: 'json', wrap: 'rows' } },
};

const SQL = 'SELECT id, small, amount, zip, day, ok FROM typed ORDER BY small';
const EXPECTED_ROWS = [
  { id: '9007199254740993', small: 1, amount: '12345678901234567890.12', zip: '02134', day: '2025-01-01T00:00:00.000Z', ok: true },
  { id: '-9223372036854775808', small: 2, amount: '0.10', zip: '00501', day: '2024-02-29T00:00:00.000Z', ok: false },
];

let pg: Postgres;
beforeAll(async () => {
  pg = await startPostgres();
  await pg.sql(`CREATE TABLE typed (id int8, small int4, amount numeric(30, 2), zip text, day date, ok boolean);
    INSERT INTO typed VALUES (9007199254740993, 1, 12345678901234567890.12, '02134', '2025-01-01', true),
                             (-9223372036854775808, 2, 0.10, '00501', '2024-02-29', false);`);
});
afterAll(async () => {
  await pg?.stop();
});

function gateway() {
  // TZ: node-postgres turns a date into local midnight; UTC keeps the expected text stable.
  return startStdioGateway({ name: 'pg', command: process.execPath, args: [SERVER, pg.url], env: { TZ: 'UTC' }, tools: TOOLS });
}

/** What a client gets back from one `query` call, however its SDK shapes it. */
type CallResult = { content?: unknown; structuredContent?: unknown; isError?: boolean };

function checkText(result: CallResult): void {
  expect(result.isError).toBeFalsy();
  // The text is the upstream's, untouched: the exact digits a JSON number could not hold.
  expect(JSON.parse(firstText(result))).toEqual(EXPECTED_ROWS);
  expect(firstText(result)).toContain('"9007199254740993"');
}

describe('server-postgres 0.6.2 rows through the gateway', () => {
  it('v1 client: the query answers, the text is exact, and the rows are typed exactly (BRIDGING)', async () => {
    const gw = await gateway();
    const client = await connectV1(gw.url, 'pg-v1');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['query']);
    const result = (await client.callTool({ name: 'query', arguments: { sql: SQL } })) as CallResult;
    checkText(result);

    // The engine, on the very text the server sent, for the revision a bridged session has.
    const engine = rewriteToolCall({ content: result.content as JsonObject[] }, 'query', upstreamWith(TOOLS), '2025-11-25');
    expect(engine.outcome).toMatchObject({ outcome: 'extracted', format: 'json' });
    expect(engine.result.structuredContent).toEqual({ rows: EXPECTED_ROWS });
    const refused = rewriteToolCall({ content: result.content as JsonObject[] }, 'query', upstreamWith(INTEGER_ID), '2025-11-25');
    expect(refused.outcome.outcome).toBe('invalid');
    expect(refused.outcome.reasons?.join('\n')).toContain('/rows/0/id 9007199254740993 has more digits than a JSON number holds exactly');

    // BRIDGING: a 2025-11-25 client in front of a 2024-11-05 server is shown the schema and gets the rows.
    expect(tools[0]!.outputSchema).toEqual(TOOLS.query!.outputSchema);
    expect(result.structuredContent).toEqual({ rows: EXPECTED_ROWS });
  });

  it('v2 client: the same rows, typed the same (BRIDGING)', async () => {
    const gw = await gateway();
    const client = new ClientV2({ name: 'pg-v2', version: '1.0.0' });
    await client.connect(new TransportV2(new URL(gw.url)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['query']);
      const result = (await client.callTool({ name: 'query', arguments: { sql: SQL } })) as CallResult;
      checkText(result);
      // BRIDGING (as above).
      expect(tools[0]!.outputSchema).toEqual(TOOLS.query!.outputSchema);
      expect(result.structuredContent).toEqual({ rows: EXPECTED_ROWS });
    } finally {
      await client.close();
    }
  });
});
