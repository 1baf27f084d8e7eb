/**
 * A 2026-07-28 request whose `params._meta` is no object is refused (400, -32700) before it reaches a stdio
 * upstream; the reason used to read "(params._meta is an object)", as if that were what was wrong with it.
 */
import { expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

it('says that params._meta must be an object', async () => {
  const gw = await startStdioGateway();
  const res = await fetch(gw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: [] } }),
  });
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: number; message: string } };
  expect(body.error.code).toBe(-32700);
  expect(body.error.message).toBe('parse error: invalid JSON-RPC message (params._meta must be an object)');
});
