/**
 * A session-less request at 2026-07-28 gets the protocol's "unsupported version" answer listing the legacy
 * revisions (HTTP 400, JSON-RPC -32022, data.supported / data.requested) — the answer the v2 SDK client's
 * auto negotiation recognises before falling back to a legacy initialize. No child is spawned for it.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('stdio upstream: 2026-07-28 requests', () => {
  it('answers a modern request (header and _meta) with -32022 and the supported legacy revisions', async () => {
    const gateway = await startStdioGateway();
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'probe-1', method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 'probe-1',
      error: { code: -32022, message: expect.stringContaining('2026-07-28'), data: { code: 'RETROFIT_ERR_UNSUPPORTED_VERSION', supported: LEGACY, requested: '2026-07-28' } },
    });
    expect(gateway.routes.pids()).toEqual([]);
  });

  it('recognises the claim in _meta alone', async () => {
    const gateway = await startStdioGateway();
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 3, error: { code: -32022, data: { requested: '2026-07-28' } } });
  });

  it('lets the v2 client with auto negotiation fall back after exactly that answer', async () => {
    const gateway = await startStdioGateway();
    const client = new ClientV2({ name: 'auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransportV2(new URL(gateway.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const requests = (await gateway.metrics.requests.get()).values.map((v) => v.labels);
    expect(requests).toContainEqual({ upstream: 'fixture', method: 'server/discover', status: 400 });
    expect(requests).toContainEqual({ upstream: 'fixture', method: 'initialize', status: 200 });
    expect(gateway.routes.pids()).toHaveLength(1);
  });

  it('still requires a session for legacy requests, 404s unknown sessions, and spawns nothing for refused requests', async () => {
    const gateway = await startStdioGateway();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const missing = await fetch(gateway.url, { method: 'POST', headers, body });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: -32600, data: { code: 'RETROFIT_ERR_SESSION_REQUIRED' } } });
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
