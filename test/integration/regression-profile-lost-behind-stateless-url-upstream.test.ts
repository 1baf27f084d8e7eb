/**
 * A client profile is decided at initialize and remembered per session, keyed by the upstream's Mcp-Session-Id.
 * Behind a `url:` upstream that issues none (a stateless Streamable HTTP server: the v1 SDK's transport with
 * `sessionIdGenerator: undefined`), the client's later requests carried no session, so no profile applied: a
 * client matched to `outputSchema: strip` still got outputSchema and structuredContent. The gateway now gives
 * such a client a session id of its own (src/http/proxy/minted.ts), and strips it before the upstream. Real
 * parts: a v1 SDK stateless server (its request handler wrapped to record the headers it gets), v1 SDK clients.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { tempFiles } from '../unit/config/helpers.js';

/** What the upstream got of one request: its method, JSON-RPC method (POST) and Mcp-Session-Id header. */
interface Seen {
  readonly verb: string | undefined;
  readonly rpc: string | undefined;
  readonly session: string | undefined;
}

const MINTED = /^mr-[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/;

/** A stateless v1 SDK server (a fresh server and transport per POST, as the SDK's stateless example does). */
async function statelessUpstream(): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const session = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? (JSON.parse((await readBody(req)).toString('utf8')) as { method?: string }) : undefined;
    seen.push({ verb: req.method, rpc: body?.method, session: typeof session === 'string' ? session : undefined });
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed.' } }));
      return;
    }
    const server = new McpServer({ name: 'stateless-up', version: '1.0.0' });
    server.registerTool('cities', { inputSchema: {}, outputSchema: { count: z.number() } }, async () => ({ content: [{ type: 'text', text: 'two cities' }], structuredContent: { count: 2 } }));
    // Stateless: no session id generator (the option's type says so only without exactOptionalPropertyTypes).
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined } as unknown as ConstructorParameters<typeof StreamableHTTPServerTransport>[0]);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const up = await listen((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  return { url: `${up.origin}/mcp`, seen };
}

async function setup(): Promise<{ gateway: TestGateway; url: string; seen: Seen[] }> {
  const upstream = await statelessUpstream();
  const dir = await tempFiles({
    'gateway.yaml': `clients:
  - name: plain
    match: { name: "plain-*" }
    outputSchema: strip
upstreams:
  up:
    url: ${upstream.url}
`,
  });
  const gateway = await startGateway(await loadConfig(join(dir, 'gateway.yaml')));
  return { gateway, url: gateway.url('/up/mcp'), seen: upstream.seen };
}

async function connect(url: string, name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  onTestFinished(() => client.close());
  await client.connect(transport);
  return { client, transport };
}

describe('a client profile behind a url upstream that issues no Mcp-Session-Id', () => {
  it('strip applies through a session id the gateway mints, which the upstream never sees; DELETE is the gateway\'s', async () => {
    const { gateway, url, seen } = await setup();
    const { client, transport } = await connect(url, 'plain-host');
    expect(transport.sessionId).toMatch(MINTED);
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual(['cities']);
    expect(tools[0]?.outputSchema).toBeUndefined();
    const result = await client.callTool({ name: 'cities', arguments: {} });
    expect(result).toEqual({ content: [{ type: 'text', text: 'two cities' }] });
    expect(gateway.logs.filter((l) => l.msg === 'request' && l.profile === 'plain').map((l) => l.method).sort()).toEqual(['tools/call', 'tools/list']);
    const before = seen.length;
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    // The DELETE was answered by the gateway: the upstream got nothing more.
    expect(seen.length).toBe(before);
    expect(seen.map((s) => s.rpc ?? s.verb)).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']));
    expect(seen.filter((s) => s.session !== undefined)).toEqual([]);
    expect(seen.some((s) => s.verb === 'DELETE')).toBe(false);
  });

  it('a client no profile matched gets no session id, and the outputSchema and structuredContent as always', async () => {
    const { url, seen } = await setup();
    const { client, transport } = await connect(url, 'typed-host');
    expect(transport.sessionId).toBeUndefined();
    expect((await client.listTools()).tools[0]?.outputSchema).toMatchObject({ type: 'object', properties: { count: { type: 'number' } } });
    expect(await client.callTool({ name: 'cities', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'two cities' }], structuredContent: { count: 2 } });
    expect(seen.filter((s) => s.session !== undefined)).toEqual([]);
  });

  it('a minted id the gateway does not know (another replica, a restart) is stripped, served without a profile; a GET goes without it', async () => {
    const { url, seen } = await setup();
    const unknown = `r9.mr-${randomUUID()}`;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': unknown, 'mcp-protocol-version': '2025-06-18' };
    const call = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'cities', arguments: {} } }) });
    expect(call.status).toBe(200);
    expect(await call.text()).toContain('"structuredContent":{"count":2}');
    const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': unknown } });
    expect(get.status).toBe(405);
    await get.body?.cancel();
    expect(seen.map((s) => [s.verb, s.session])).toEqual([
      ['POST', undefined],
      ['GET', undefined],
    ]);
    // Its DELETE is the gateway's too, known or not.
    const del = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': unknown } });
    expect(del.status).toBe(200);
    expect(await del.text()).toBe('');
    expect(seen).toHaveLength(2);
  });
});
