/**
 * A session-less request at 2026-07-28 in front of a stdio upstream that does not serve that revision
 * (`stateless: { serve: false }`): answered as a stateful server answers any request before `initialize` —
 * 400, "Mcp-Session-Id header is required" — so every client library that probes `server/discover` falls back
 * to `initialize` (issue 24, item 3). -32022 (unsupported version), which the gateway once answered, is final
 * for `@ai-sdk/mcp`: with its documented defaults it could not connect through the gateway, though it
 * connects to the server alone. No child is spawned for a probe.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { createMCPClient } from '@ai-sdk/mcp';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { STATELESS_DEFAULTS } from '../../src/config/types.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const NOT_SERVED = { upstream: { stateless: { ...STATELESS_DEFAULTS, serve: false } } };
const SESSION_REQUIRED = { code: -32600, message: 'Mcp-Session-Id header is required', data: { code: 'RETROFIT_ERR_SESSION_REQUIRED' } };

describe('stdio upstream, stateless.serve: false: 2026-07-28 requests', () => {
  it('answers a server/discover probe (header and _meta) as a stateful server does before initialize', async () => {
    const gateway = await startStdioGateway(NOT_SERVED);
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'probe-1', method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 'probe-1', error: SESSION_REQUIRED });
    expect(gateway.routes.pids()).toEqual([]);
  });

  it('is not served with bridge: false either', async () => {
    const gateway = await startStdioGateway({ upstream: { bridge: false } });
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'probe-2', method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 'probe-2', error: SESSION_REQUIRED });
    expect(gateway.routes.pids()).toEqual([]);
  });

  it('answers a claim in _meta alone the same way', async () => {
    const gateway = await startStdioGateway(NOT_SERVED);
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 3, error: SESSION_REQUIRED });
  });

  it('lets the v2 client with auto negotiation fall back after that answer', async () => {
    const gateway = await startStdioGateway(NOT_SERVED);
    const client = new ClientV2({ name: 'auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransportV2(new URL(gateway.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const requests = (await gateway.metrics.requests.get()).values.map((v) => v.labels);
    expect(requests).toContainEqual({ upstream: 'fixture', method: 'server/discover', status: 400 });
    expect(requests).toContainEqual({ upstream: 'fixture', method: 'initialize', status: 200 });
    expect(gateway.routes.pids()).toHaveLength(1);
  });

  it('lets @ai-sdk/mcp with its documented defaults connect, list, and get the validated structured value', async () => {
    const gateway = await startStdioGateway({ ...NOT_SERVED, tools: { echo: { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } } } });
    const client = await createMCPClient({ transport: { type: 'http', url: gateway.url } });
    onTestFinished(() => client.close());
    const tools = await client.tools({ schemas: { echo: { inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ n: z.number() }) } } });
    // JSON inside prose: the client's own fallback (parsing the text as JSON) cannot read it; the gateway's retrofit did.
    const value = await tools.echo!.execute!({ text: 'The answer is {"n": 3}, as computed.' }, { toolCallId: 'c1', messages: [], context: {} });
    expect(value).toEqual({ n: 3 });
    const requests = (await gateway.metrics.requests.get()).values.map((v) => v.labels);
    expect(requests).toContainEqual({ upstream: 'fixture', method: 'server/discover', status: 400 });
    expect(requests).toContainEqual({ upstream: 'fixture', method: 'initialize', status: 200 });
  });

  it('still requires a session for legacy requests, 404s unknown sessions, and spawns nothing for refused requests', async () => {
    const gateway = await startStdioGateway(NOT_SERVED);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const missing = await fetch(gateway.url, { method: 'POST', headers, body });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ jsonrpc: '2.0', id: 1, error: SESSION_REQUIRED });
    const unknown = await fetch(gateway.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': 'nope' }, body });
    expect(unknown.status).toBe(404);
    const parse = await fetch(gateway.url, { method: 'POST', headers, body: '{"jsonrpc":' });
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ error: { code: -32700 } });
    const media = await fetch(gateway.url, { method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body });
    expect(media.status).toBe(415);
    // An initialize the transport refuses (Accept without text/event-stream) opens no session and spawns nothing.
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const refused = await fetch(gateway.url, { method: 'POST', headers: { ...headers, accept: 'application/json' }, body: init });
    expect(refused.status).toBe(406);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(gateway.routes.sessions()).toBe(0);
    expect(gateway.routes.pids()).toEqual([]);
  });
});
