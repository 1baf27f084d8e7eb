/**
 * An upstream that writes a request's id back as a string ("2" answering 2). The v1 SDK client matches answers
 * by Number(id), so it took such an answer, which the gateway had passed on unmatched and so unrewritten, and
 * threw "Tool num has an output schema but did not return structured content". The gateway now matches it to
 * the request whose id differs only in JSON type, rewrites it, and answers under the id the client sent.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { connectV1, startStdioGateway } from '../helpers/stdio-gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';
import { tempFiles } from '../unit/config/helpers.js';

/** A Streamable HTTP upstream (2025-11-25, JSON answers) that answers every request with its id as a string. */
async function stringIdUpstream(): Promise<string> {
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(body.toString('utf8')) as { id?: string | number; method: string; params?: { protocolVersion?: string } };
      if (m.id === undefined) return void res.writeHead(202).end();
      let result: unknown = {};
      if (m.method === 'initialize') result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'string-ids', version: '1' } };
      if (m.method === 'tools/list') result = { tools: [{ name: 'num', inputSchema: { type: 'object' } }] };
      if (m.method === 'tools/call') result = { content: [{ type: 'text', text: '{"n": 5}' }] };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: String(m.id), result }));
    });
  });
  return `${origin}/mcp`;
}

it('a v1 client gets the rewritten answer, under its own id, when the upstream writes the id as a string', async () => {
  const dir = await tempFiles({
    'gw.yaml': `upstreams:\n  up:\n    url: ${await stringIdUpstream()}\n    tools:\n      num: { outputSchema: { type: object, properties: { n: { type: integer } }, required: [n] } }\n`,
  });
  const gw = await startGateway(await loadConfig(join(dir, 'gw.yaml')));
  const { client, transport } = await connectV1Client(gw.url('/up/mcp'));
  expect((await client.listTools()).tools[0]?.outputSchema).toMatchObject({ type: 'object' });
  const result = await client.callTool({ name: 'num', arguments: {} });
  expect(result.structuredContent).toEqual({ n: 5 });

  // A client that matches ids by type too gets its own id back.
  const raw = await fetch(gw.url('/up/mcp'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'num', arguments: {} } }),
  });
  const answer = (await raw.json()) as { id: unknown; result: { structuredContent?: unknown } };
  expect(answer.id).toBe(77);
  expect(answer.result.structuredContent).toEqual({ n: 5 });
  expect(gw.logs.some((l) => typeof l.msg === 'string' && l.msg.includes('another JSON type'))).toBe(true);
});

it('a stdio upstream answering with string ids: the gateway-held session routes and rewrites its answers', async () => {
  const dir = await tempFiles({
    'up.mjs': `import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  let result = {};
  if (m.method === 'initialize') result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'string-ids', version: '1' } };
  if (m.method === 'tools/list') result = { tools: [{ name: 'num', inputSchema: { type: 'object' } }] };
  if (m.method === 'tools/call') result = { content: [{ type: 'text', text: '{"n": 5}' }] };
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: String(m.id), result }) + '\\n');
});
`,
  });
  const gw = await startStdioGateway({ args: [join(dir, 'up.mjs')], tools: { num: { outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } } });
  const client = await connectV1(gw.url, 'string-ids');
  await client.listTools();
  expect((await client.callTool({ name: 'num', arguments: {} })).structuredContent).toEqual({ n: 5 });
});
