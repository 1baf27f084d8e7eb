/**
 * Regression: a reload to an outputSchema that recurses without end (`{type: object, $ref: "#"}`) was applied,
 * and from then on every result of the tool became an isError ("cannot be validated (Maximum call stack size
 * exceeded)"). The reload is now refused with the problem at its FILE:LINE:COL, and the running config,
 * whose recursive tree schema is fine, keeps serving.
 */
import { expect, it } from 'vitest';
import { startServe } from '../helpers/serve.js';
import { startV1Server } from '../helpers/v1-server.js';

const TREE = '{ type: object, title: tree, properties: { children: { type: array, items: { $ref: "#" } } } }';
const config = (url: string, schema: string): string => `upstreams:\n  up:\n    url: ${url}\n    tools:\n      echo:\n        outputSchema: ${schema}\n`;

async function echoSchema(origin: string): Promise<unknown> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(`${origin}/up/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await init.text();
  const list = await fetch(`${origin}/up/mcp`, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  const text = await list.text();
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  const message = JSON.parse(data ? data.slice(6) : text) as { result: { tools: { name: string; outputSchema?: unknown }[] } };
  return message.result.tools.find((t) => t.name === 'echo')?.outputSchema;
}

it('a reload to a schema that recurses at the same place is refused, and the tree schema keeps serving', async () => {
  const upstream = await startV1Server();
  const gw = await startServe(config(upstream.url, TREE));
  expect(await echoSchema(gw.origin)).toMatchObject({ title: 'tree' });

  gw.write(config(upstream.url, '{ type: object, $ref: "#" }'));
  const result = await gw.sighup();
  expect(result).toMatchObject({ ok: false });
  expect(result.ok ? [] : result.problems).toEqual([
    `${gw.file}:6:9 upstreams.up.tools.echo.outputSchema: $ref "#" leads back to this schema at the same place in the result (# -> #): validating anything would recurse without end`,
  ]);
  expect(await echoSchema(gw.origin)).toMatchObject({ title: 'tree' });
});
