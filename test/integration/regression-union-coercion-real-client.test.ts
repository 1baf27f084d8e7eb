/**
 * A table under a oneOf (a discriminated union of rows), through the gateway from a real stdio upstream to a
 * real v1 SDK client: each row is coerced by the branch it fits. Coercion used to follow the first branch
 * only, so the `code` row's "34" became 34 and the client got an error instead of its rows.
 */
import { expect, it } from 'vitest';
import { connectV1, startStdioGateway } from '../helpers/stdio-gateway.js';

const num = { type: 'object', properties: { kind: { const: 'num' }, v: { type: 'integer' } }, required: ['kind', 'v'] };
const code = { type: 'object', properties: { kind: { const: 'code' }, v: { type: 'string' } }, required: ['kind', 'v'] };

it('a v1 client gets every row of a oneOf table typed by the branch it matches', async () => {
  const gw = await startStdioGateway({
    tools: { echo: { outputSchema: { type: 'object', properties: { rows: { type: 'array', items: { oneOf: [num, code] } } }, required: ['rows'] }, extract: { format: 'table', wrap: 'rows' } } },
  });
  const client = await connectV1(gw.url, 'union-client');
  await client.listTools();
  const result = await client.callTool({ name: 'echo', arguments: { text: '| kind | v |\n|---|---|\n| num | 12 |\n| code | 34 |' } });
  expect(result.isError).toBeUndefined();
  expect(result.structuredContent).toEqual({ rows: [{ kind: 'num', v: 12 }, { kind: 'code', v: '34' }] });
});
