/**
 * A v2 client pinned to 2026-07-28 in front of servers that never heard of it (issue 24): the text-only
 * fixture on SDK 1.10.2 (initialize answered 2024-11-05) over legacy HTTP+SSE and over stdio, and
 * @modelcontextprotocol/server-memory 2025.8.4 (stdio). Through the gateway the client discovers, lists the
 * configured schemas as they are (an integer root stays an integer root) and gets validated structuredContent
 * of any root — what a native 2026-07-28 server would give it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream, sseUpstream, stdioUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { LEGACY_SDK_SERVER, LEGACY_TOOLS, startLegacySdkServer } from '../helpers/legacy-sdk.js';
import { REPO } from '../helpers/stdio-gateway.js';
import { startEverything } from '../helpers/everything.js';

const MODERN = '2026-07-28';
const MEMORY_2025 = resolve(REPO, 'node_modules/server-memory-2025/dist/index.js');

async function modernClient(url: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } } as never);
  onTestFinished(() => client.close());
  await client.connect(new TransportV2(new URL(url)));
  return client;
}

async function legacyUpstream(kind: 'sse' | 'stdio' | 'http'): Promise<UpstreamConfig> {
  const common = { tools: LEGACY_TOOLS, timeoutMs: 10_000 };
  if (kind === 'stdio') return stdioUpstream('legacy', process.execPath, { ...common, args: [LEGACY_SDK_SERVER, 'stdio'], env: { SDK: 'sdk-1-10' }, cwd: REPO });
  const server = await startLegacySdkServer(kind);
  onTestFinished(() => server.close());
  return kind === 'sse' ? sseUpstream('legacy', server.url, common) : httpUpstream('legacy', server.url, common);
}

const TRANSPORT = { sse: 'legacy HTTP+SSE', stdio: 'stdio', http: 'Streamable HTTP (a url upstream: its server/discover refused, so the gateway serves)' } as const;

describe('a 2026-07-28 client in front of legacy-era servers', () => {
  for (const kind of ['sse', 'stdio', 'http'] as const) {
    it(`SDK 1.10 over ${TRANSPORT[kind]}: discover, list, call with natural roots`, async () => {
      const gw = await startGateway(gatewayConfig([await legacyUpstream(kind)]));
      const client = await modernClient(gw.url('/legacy/mcp'));
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'get_temperature')?.outputSchema).toEqual({ type: 'integer' });
      // The v2 client validates each value against the schema it listed: success proves they match.
      expect((await client.callTool({ name: 'get_temperature', arguments: { city: 'Oslo' } })).structuredContent).toBe(-3);
      const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
      expect(weather.structuredContent).toEqual({ city: 'Paris', temperature: 17, conditions: 'cloudy' });
      const revisions = (await gw.metrics.revisions.get()).values.filter((v) => v.labels.revision === MODERN);
      expect(revisions.reduce((n, v) => n + v.value, 0)).toBeGreaterThanOrEqual(3);
      // One pooled upstream session served every request.
      expect(gw.app.upstreams.get('legacy')?.counts?.()).toMatchObject({ pooled: 1 });
    });
  }

  it('server-memory 2025.8.4 (stdio): entities created and read back as structured values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retrofit-modern-memory-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const graph = { type: 'object', properties: { entities: { type: 'array' }, relations: { type: 'array' } }, required: ['entities', 'relations'] };
    const upstream = stdioUpstream('memory', process.execPath, { args: [MEMORY_2025], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') }, cwd: REPO, tools: { read_graph: { outputSchema: graph }, create_entities: { outputSchema: { type: 'array' } } } });
    const gw = await startGateway(gatewayConfig([upstream]));
    const client = await modernClient(gw.url('/memory/mcp'));
    const created = await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] } });
    expect(created.structuredContent).toEqual([{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }]);
    const read = await client.callTool({ name: 'read_graph', arguments: {} });
    expect(read.structuredContent).toMatchObject({ entities: [{ name: 'Ada', entityType: 'person' }], relations: [] });
  });
});

describe('a 2026-07-28 client in front of server-everything over Streamable HTTP (a url upstream of session revisions)', () => {
  it('progress, sampling through input_required, and cancellation, on the pooled sessions the gateway holds over HTTP', async () => {
    const upstream = await startEverything();
    const gw = await startGateway(gatewayConfig([httpUpstream('everything', upstream.url, { timeoutMs: 10_000 })]));
    const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: MODERN } } } as never);
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(gw.url('/everything/mcp'))));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const progress: number[] = [];
    await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } }, { onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2]);
    client.setRequestHandler('sampling/createMessage', async () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'sampled over HTTP' } }));
    const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'p', maxTokens: 5 } });
    expect(JSON.stringify(sampled.content)).toContain('sampled over HTTP');
    // A call the client gives up on: its answer stream closes, the upstream request is cancelled, the session is lent again.
    const controller = new AbortController();
    const slow = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, { signal: controller.signal });
    await expect.poll(() => gw.app.upstreams.get('everything')?.counts?.().pooledBusy).toBe(1);
    controller.abort();
    await expect(slow).rejects.toThrow();
    await expect.poll(() => gw.app.upstreams.get('everything')?.counts?.().pooledBusy).toBe(0);
    expect((await client.callTool({ name: 'echo', arguments: { message: 'after' } })).content).toEqual([{ type: 'text', text: 'Echo: after' }]);
  });
});

describe('a malformed 2026-07-28 request to a url upstream of session revisions', () => {
  const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
  /** One raw POST; `headers` replace the revision's defaults derived from the body (undefined: left out). */
  function post(url: string, body: Record<string, unknown>, headers: Record<string, string | undefined> = {}): Promise<Response> {
    const params = (body.params ?? {}) as Record<string, unknown>;
    const all: Record<string, string | undefined> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': String(body.method),
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
      ...headers,
    };
    const sent = Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
    return fetch(url, { method: 'POST', headers: sent, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
  }

  it('gets the revision\'s answer from the gateway (-32020, -32602, -32022), not the session-era error of the upstream', async () => {
    const gw = await startGateway(gatewayConfig([await legacyUpstream('http')]));
    const url = gw.url('/legacy/mcp');
    const call = { id: 1, method: 'tools/call', params: { name: 'get_temperature', arguments: { city: 'Oslo' }, _meta: META } };
    const cases: [string, Record<string, unknown>, Record<string, string | undefined>, number][] = [
      ['Mcp-Method disagrees', call, { 'mcp-method': 'tools/list' }, -32020],
      ['Mcp-Name missing', call, { 'mcp-name': undefined }, -32020],
      ['no MCP-Protocol-Version header, _meta names 2026-07-28', call, { 'mcp-protocol-version': undefined }, -32020],
      ['an older header, _meta names 2026-07-28', call, { 'mcp-protocol-version': '2025-11-25' }, -32020],
      ['no clientCapabilities in _meta', { ...call, params: { ...call.params, _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': undefined } } }, {}, -32602],
      ['a newer revision', { id: 1, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } } }, { 'mcp-protocol-version': '2027-01-01' }, -32022],
    ];
    for (const [what, body, headers, code] of cases) {
      const res = await post(url, body, headers);
      const answer = (await res.json()) as { id: unknown; error?: { code: number } };
      expect({ what, status: res.status, id: answer.id, code: answer.error?.code }).toEqual({ what, status: 400, id: 1, code });
    }
    // The well-formed request is served on a pooled session.
    const ok = await post(url, call);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"structuredContent":-3');
  });

  it('is never matched to a session, whatever Mcp-Session-Id it carries: served on a pooled session', async () => {
    const gw = await startGateway(gatewayConfig([await legacyUpstream('http')]));
    const call = { id: 2, method: 'tools/call', params: { name: 'get_temperature', arguments: { city: 'Oslo' }, _meta: META } };
    const res = await post(gw.url('/legacy/mcp'), call, { 'mcp-session-id': 'a-session-nobody-opened' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"structuredContent":-3');
  });
});
