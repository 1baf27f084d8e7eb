/**
 * Regression: an upstream that splits one large JSON-RPC answer over many `data:` lines of one SSE event (legal
 * SSE, and JSON allows a newline between tokens), each line well under 256 KiB, the event ~720 KB. Only an event
 * whose data was one line used to reach the retrofit as bytes: these lines were decoded one by one, joined, and
 * the string handed on as text, decoded on the event loop. Now the lines' values reach the worker joined as
 * bytes (`input: 'bytes'`), and a real v1 client gets the structuredContent the text's JSON makes — from a
 * legacy HTTP+SSE upstream (the link's splitter) and from a proxied Streamable HTTP one (the relay).
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../../src/config/types.js';
import type { JsonObject } from '../../src/json.js';
import { gatewayConfig, httpUpstream, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { rawLegacyUpstream, type LegacyMessage } from '../helpers/raw-legacy.js';
import { connectV1Client } from '../helpers/v1-client.js';

const ROWS = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] }));
const PADDING = Array.from({ length: 120 }, (_, i) => `${i}`.padEnd(5000, '.'));
const schema: JsonObject = { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', required: ['id', 'name'] } } }, required: ['rows'] };
const tools = { rows: { outputSchema: schema } };
const TOOL_LIST = { tools: [{ name: 'rows', inputSchema: { type: 'object' } }] };

/** The answer as such an upstream writes it: indented JSON, each of its lines a `data:` line of one event. */
function multiLineEvent(id: string | number): string {
  const message = { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: JSON.stringify({ rows: ROWS }) }], _meta: { padding: PADDING } } };
  const lines = JSON.stringify(message, null, 1).split('\n');
  return `event: message\n${lines.map((l) => `data: ${l}\n`).join('')}\n`;
}

async function legacyUpstream(): Promise<UpstreamConfig> {
  const up = await rawLegacyUpstream((body, res, legacy) => {
    res.writeHead(202).end();
    const m = body as LegacyMessage;
    if (m.id === undefined) return;
    if (m.method === 'initialize') return legacy.initialized(m.id);
    if (m.method === 'tools/list') return legacy.event(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: TOOL_LIST }));
    legacy.write(multiLineEvent(m.id));
  });
  return sseUpstream('legacy', up.url, { timeoutMs: 20_000, tools });
}

function json(res: ServerResponse, body: object): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A stateless Streamable HTTP upstream (2025-06-18) on node:http that answers its tools/call over SSE. */
async function streamableUpstream(): Promise<UpstreamConfig> {
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(body.toString('utf8')) as LegacyMessage;
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'initialize') return json(res, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
      if (m.method === 'tools/list') return json(res, { jsonrpc: '2.0', id: m.id, result: TOOL_LIST });
      if (m.method !== 'tools/call') return json(res, { jsonrpc: '2.0', id: m.id, result: {} });
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(multiLineEvent(m.id));
    });
  });
  return httpUpstream('legacy', `${origin}/mcp`, { timeoutMs: 20_000, tools });
}

describe('regression: a large SSE event split over many data lines', () => {
  it('is one long event of short lines', () => {
    const event = multiLineEvent(1);
    const lines = event.split('\n');
    expect(lines.length).toBeGreaterThan(100);
    expect(Math.max(...lines.map((l) => Buffer.byteLength(l)))).toBeLessThan(256 * 1024);
    expect(Buffer.byteLength(event)).toBeGreaterThan(700_000);
  });

  it.each([
    ['a legacy HTTP+SSE upstream', legacyUpstream],
    ['a proxied Streamable HTTP upstream', streamableUpstream],
  ])('from %s reaches the worker as bytes, not decoded on the event loop; the client gets its structuredContent', async (_name, upstream) => {
    const gw = await startGateway(gatewayConfig([await upstream()]));
    const { client } = await connectV1Client(gw.url('/legacy/mcp'));

    expect((await client.listTools()).tools[0]?.outputSchema).toEqual(schema);
    const result = await client.callTool({ name: 'rows', arguments: {} });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ rows: ROWS });
    expect((result._meta as { padding: string[] }).padding).toEqual(PADDING);
    // The worker parsed the answer from the bytes the lines were joined in; nothing decoded them here first.
    expect(gw.logs.filter((l) => l.msg === 'retrofit offloaded to a worker')).toMatchObject([{ tool: 'rows', unparsed: true, input: 'bytes' }]);
    expect((await gw.metrics.offloads.get()).values.find((v) => v.labels.result === 'worker')?.value).toBe(1);
  });
});
