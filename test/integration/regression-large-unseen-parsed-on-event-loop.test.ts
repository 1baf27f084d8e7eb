/**
 * Regression (a large answer for a client shown no schema was parsed on the event loop): a tools/call answer past
 * the offload threshold reaches the pipeline as bytes, and offloadRaw sent it to the worker unparsed only when
 * the client got the retrofitted result (mode applied). A client that gets the answer as if the tool were
 * unconfigured — mode unseen (every 2025-03-26 client: an old SDK's) or shadow — had it JSON.parsed whole on the
 * event loop, and only the retrofit (for its metrics) then went to the worker, while every other session waited.
 * Now the worker parses and retrofits those too, and the client's answer is decided from its miniature of the
 * result: here the original bytes, exactly as before.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { OFFLOAD_BYTES } from '../../src/pipeline/offload/plan.js';
import { watchIncoming } from '../../src/probe/list-tools.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startV1Server } from '../helpers/v1-server.js';

const rows = Array.from({ length: 8_000 }, (_, i) => ({ id: i, name: `row ${i} "q" ü` }));
/** ~300 KB of JSON text that the configured schema takes, and as much prose that it cannot read. */
const TYPED: JsonObject = { content: [{ type: 'text', text: JSON.stringify({ rows }) }] };
const PROSE: JsonObject = { content: [{ type: 'text', text: `No JSON here. ${'lorem ipsum '.repeat(26_000)}` }] };
const schema = { type: 'object', properties: { rows: { type: 'array' } }, required: ['rows'] };
const tools = { typed: { outputSchema: schema }, prose: { outputSchema: schema }, shadowed: { outputSchema: schema, shadow: true } };

function build(): McpServer {
  const server = new McpServer({ name: 'large', version: '1.0.0' });
  server.registerTool('typed', {}, async () => TYPED as never);
  server.registerTool('prose', {}, async () => PROSE as never);
  server.registerTool('shadowed', {}, async () => TYPED as never);
  return server;
}

/** Today's v1 client asking for `revision` (its initialize's protocolVersion rewritten on the way out), and what it received. */
async function connect(url: string, revision: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport; received: JsonObject[] }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send('method' in message && message.method === 'initialize' ? { ...message, params: { ...message.params, protocolVersion: revision } } : message, options);
  const received: JsonObject[] = [];
  watchIncoming(transport as never, (m) => void received.push(m as JsonObject));
  const client = new Client({ name: `client-${revision}`, version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(transport);
  return { client, transport, received };
}

/** A tools/call on the client's session, its response body as the gateway wrote it. */
async function rawCall(gw: TestGateway, transport: StreamableHTTPClientTransport, revision: string, name: string, id: number): Promise<string> {
  const res = await fetch(gw.url('/large/mcp'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': revision },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }),
  });
  expect(res.status).toBe(200);
  return res.text();
}

async function outcomes(gw: TestGateway): Promise<string[]> {
  return (await gw.metrics.retrofits.get()).values.map((v) => `${v.labels.tool} ${v.labels.outcome} ${v.labels.mode} ${v.value}`);
}

describe('regression: a large answer for a client shown no schema is not parsed on the event loop', () => {
  it('unseen (2025-03-26) and shadow (2025-06-18): the answer as before, counted as before, read on the worker only', async () => {
    expect((TYPED.content as { text: string }[])[0]!.text.length).toBeGreaterThan(OFFLOAD_BYTES);
    expect((PROSE.content as { text: string }[])[0]!.text.length).toBeGreaterThan(OFFLOAD_BYTES);
    const upstream = await startV1Server({ jsonResponse: true, build });
    const gw = await startGateway(gatewayConfig([httpUpstream('large', upstream.url, { tools })]));

    // (a) A 2025-03-26 client: shown no outputSchema, it gets the upstream's content and no structuredContent.
    const old = await connect(gw.url('/large/mcp'), '2025-03-26');
    expect(old.received[0]).toMatchObject({ result: { protocolVersion: '2025-03-26' } });
    const listed = (await old.client.listTools()).tools;
    expect(listed.map((t) => [t.name, t.outputSchema])).toEqual([['typed', undefined], ['prose', undefined], ['shadowed', undefined]]);
    const typed = await old.client.callTool({ name: 'typed' });
    expect(typed).toEqual(TYPED);
    const prose = await old.client.callTool({ name: 'prose' });
    expect(prose).toEqual(PROSE);
    // The exact bytes: a success as the engine serves the revision (its result last, as a parsed message's was
    // spliced), a failure as the upstream wrote it.
    expect(await rawCall(gw, old.transport, '2025-03-26', 'typed', 101)).toBe(JSON.stringify({ jsonrpc: '2.0', id: 101, result: TYPED }));
    expect(await rawCall(gw, old.transport, '2025-03-26', 'prose', 102)).toBe(JSON.stringify({ result: PROSE, jsonrpc: '2.0', id: 102 }));

    // (b) A shadowed tool for a 2025-06-18 client: listed without the schema, answered exactly as the upstream wrote it.
    const modern = await connect(gw.url('/large/mcp'), '2025-06-18');
    expect(modern.received[0]).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
    expect((await modern.client.listTools()).tools.find((t) => t.name === 'shadowed')?.outputSchema).toBeUndefined();
    expect(await modern.client.callTool({ name: 'shadowed' })).toEqual(TYPED);
    expect(await rawCall(gw, modern.transport, '2025-06-18', 'shadowed', 103)).toBe(JSON.stringify({ result: TYPED, jsonrpc: '2.0', id: 103 }));

    // Counted as before: what the retrofit found, under the mode that says what the client got.
    expect(await outcomes(gw)).toEqual(['typed extracted unseen 2', 'prose unparseable unseen 2', 'shadowed extracted shadow 2']);
    // Every one went to the worker as bytes: none was parsed on the event loop first (that path logs no `unparsed`).
    const offloaded = gw.logs.filter((l) => l.msg === 'retrofit offloaded to a worker');
    expect(offloaded.map((l) => [l.tool, l.unparsed])).toEqual(['typed', 'prose', 'typed', 'prose', 'shadowed', 'shadowed'].map((t) => [t, true]));
    expect(await gw.metrics.offloads.get()).toMatchObject({ values: [expect.objectContaining({ labels: { result: 'worker' }, value: 6 })] });
  });
});
