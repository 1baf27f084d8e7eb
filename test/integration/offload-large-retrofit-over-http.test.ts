import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { createMetrics } from '../../src/metrics.js';
import { OFFLOAD_BYTES } from '../../src/pipeline/offload/plan.js';
import { OffloadPool } from '../../src/pipeline/offload/pool.js';
import { createRewriter } from '../../src/pipeline/rewrite.js';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { connectV1Client } from '../helpers/v1-client.js';
import { startV1Server } from '../helpers/v1-server.js';

/**
 * A tool answering with ~5 MB of JSON text, retrofitted on the gateway's worker thread for a v1 client: the
 * structuredContent it gets equals what the synchronous engine makes of the same result, over JSON and over
 * SSE responses. A small result on the same session stays on the main thread.
 */
const rows = Array.from({ length: 70_000 }, (_, i) => ({ id: i, name: `row ${i} "q" ü`, tags: ['a', 'b'], ok: i % 2 === 0 }));
const BIG: JsonObject = { content: [{ type: 'text', text: `Result:\n${JSON.stringify({ rows })}\n` }] };
const SMALL: JsonObject = { content: [{ type: 'text', text: JSON.stringify({ rows: [{ id: 1, name: 'one' }] }) }] };
const schema = {
  type: 'object',
  properties: { rows: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] } } },
  required: ['rows'],
};

function build(): McpServer {
  const server = new McpServer({ name: 'big-text', version: '1.0.0' });
  server.registerTool('big', {}, async () => BIG as never);
  server.registerTool('small', {}, async () => SMALL as never);
  return server;
}

describe('a 5 MB text result retrofitted on the worker thread through the HTTP proxy', () => {
  it.each([
    ['JSON', true],
    ['SSE', false],
  ])('%s responses: the v1 client gets the same structuredContent as the synchronous engine makes', async (_name, jsonResponse) => {
    expect((BIG.content as { text: string }[])[0]!.text.length).toBeGreaterThan(4 * 1024 * 1024);
    const upstream = await startV1Server({ jsonResponse, build });
    const loaded = gatewayConfig([httpUpstream('big', upstream.url, { tools: { big: { outputSchema: schema }, small: { outputSchema: schema } } })]);
    const gw = await startGateway(loaded);
    const { client } = await connectV1Client(gw.url('/big/mcp'));
    // The client validates structuredContent against the injected outputSchema.
    await client.listTools();
    const big = await client.callTool({ name: 'big' });
    const small = await client.callTool({ name: 'small' });

    const policy = loaded.policies.get('big')!;
    const expected = rewriteToolCall(BIG, 'big', policy, '2025-11-25').result;
    expect(big.structuredContent).toEqual(expected.structuredContent);
    expect(big.structuredContent).toEqual({ rows });
    expect(big.content).toEqual(expected.content);
    expect(small.structuredContent).toEqual(rewriteToolCall(SMALL, 'small', policy, '2025-11-25').result.structuredContent);

    // The body (JSON) or event data (SSE) went to the worker unparsed: the event loop never parsed its 5 MB.
    expect(gw.logs.filter((l) => l.msg === 'retrofit offloaded to a worker')).toEqual([expect.objectContaining({ tool: 'big', unparsed: true, input: 'bytes' })]);
    // One result went to the worker; the small one did not.
    const offloads = await gw.metrics.offloads.get();
    expect(offloads.values).toEqual([expect.objectContaining({ labels: { result: 'worker' }, value: 1 })]);
    const outcomes = gw.logs.filter((l) => l.msg === 'retrofit').map((l) => [l.tool, l.outcome, l.format]);
    expect(outcomes).toEqual([
      ['big', 'extracted', 'embedded'],
      ['small', 'extracted', 'json'],
    ]);
    expect(OFFLOAD_BYTES).toBeLessThan((BIG.content as { text: string }[])[0]!.text.length);
  });

  it('an SSE event with other fields and CRLF line ends: its id, type and comment kept around the worker\'s bytes', async () => {
    const text = (BIG.content as { text: string }[])[0]!.text;
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        const m = JSON.parse(body.toString()) as { id: number };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`: before\r\nid: 42\r\nevent: message\r\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }] } })}\r\nretry: 900\r\n\r\n`);
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('big', `${up.origin}/mcp`, { tools: { big: { outputSchema: schema } } })]));
    const res = await fetch(gw.url('/big/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'big', arguments: {} } }),
    });
    const out = await res.text();
    expect(out.startsWith(': before\nevent: message\nid: 42\nretry: 900\ndata: ')).toBe(true);
    expect(out.endsWith('\n\n')).toBe(true);
    const message = JSON.parse(out.slice(out.indexOf('data: ') + 6, -2)) as { id: number; result: { structuredContent: unknown } };
    expect(message.id).toBe(5);
    expect(message.result.structuredContent).toEqual({ rows });
    expect(gw.logs.filter((l) => l.msg === 'retrofit offloaded to a worker')).toEqual([expect.objectContaining({ tool: 'big', unparsed: true, input: 'bytes' })]);
  });

  it.each([
    ['JSON', true],
    ['SSE', false],
  ])('%s answers on the session the gateway holds for a 2026-07-28 client: the bytes reach the worker undecoded', async (_name, jsonResponse) => {
    const upstream = await startV1Server({ jsonResponse, build });
    const gw = await startGateway(gatewayConfig([httpUpstream('big', upstream.url, { tools: { big: { outputSchema: schema } } })]));
    const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(gw.url('/big/mcp'))));
    await client.listTools();
    expect((await client.callTool({ name: 'big', arguments: {} })).structuredContent).toEqual({ rows });
    // Served on a pooled session (the upstream speaks only session revisions), whose link read the answer as bytes.
    expect(gw.app.upstreams.get('big')?.counts?.()).toMatchObject({ pooled: 1 });
    expect(gw.logs.filter((l) => l.msg === 'retrofit offloaded to a worker')).toEqual([expect.objectContaining({ tool: 'big', unparsed: true, input: 'bytes' })]);
  });

  it('ends its worker thread when the gateway closes', async () => {
    const upstream = await startV1Server({ jsonResponse: true, build });
    const loaded = gatewayConfig([httpUpstream('big', upstream.url, { tools: { big: { outputSchema: schema } } })]);
    const pool = new OffloadPool();
    const gw = await startGateway(loaded, { rewriter: createRewriter(createMetrics({ defaultMetrics: false }), { pool }) });
    const { client } = await connectV1Client(gw.url('/big/mcp'));
    expect((await client.callTool({ name: 'big' })).structuredContent).toEqual({ rows });
    await client.close();
    expect(pool.unavailable).toBeUndefined();
    await gw.app.close();
    expect(pool.unavailable).toBe('the offload pool is closed');
  });
});
