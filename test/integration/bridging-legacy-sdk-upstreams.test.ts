/**
 * Protocol bridging (issue: modern clients get structured output from legacy-era servers). A text-only
 * server on SDK 1.10.2 answers initialize with 2024-11-05 — a revision without outputSchema or
 * structuredContent — over stdio, Streamable HTTP and legacy HTTP+SSE. Through the gateway, a client that
 * asks for 2025-11-25 is answered 2025-11-25 and gets the configured schemas and validated structuredContent;
 * a 2025-03-26 client gets none of it and its results pass untouched, even when they fail the schema it
 * never saw; a v2 client in auto negotiation gets 2026-07-28 itself (served on the gateway's pooled sessions,
 * test/integration/modern-client-legacy-upstreams.test.ts) and natural roots;
 * with `bridge: false` nothing is bridged.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { UpstreamConfig } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream, sseUpstream, stdioUpstream } from '../helpers/config.js';
import { connectEraClient } from '../helpers/eras-clients.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY_SDK_SERVER, LEGACY_TOOLS, startLegacySdkServer } from '../helpers/legacy-sdk.js';
import { REPO } from '../helpers/stdio-gateway.js';

type Kind = 'stdio' | 'http' | 'sse';

async function upstreamOf(kind: Kind, extra: { bridge?: boolean } = {}): Promise<UpstreamConfig> {
  const common = { tools: LEGACY_TOOLS, timeoutMs: 10_000, ...extra };
  if (kind === 'stdio') return stdioUpstream('legacy', process.execPath, { ...common, args: [LEGACY_SDK_SERVER, 'stdio'], env: { SDK: 'sdk-1-10' }, cwd: REPO });
  const server = await startLegacySdkServer(kind);
  return kind === 'http' ? httpUpstream('legacy', server.url, common) : sseUpstream('legacy', server.url, common);
}

async function gatewayFor(kind: Kind, extra: { bridge?: boolean } = {}): Promise<TestGateway> {
  return startGateway(gatewayConfig([await upstreamOf(kind, extra)]));
}

/** A v1 client (asking for its default, 2025-11-25) over Streamable HTTP; its transport shows the revision it adopted. */
async function connectModern(url: string): Promise<{ client: Client; revision: () => string | undefined }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'modern', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(transport);
  return { client, revision: () => transport.protocolVersion };
}

async function expectStructured(client: Client): Promise<void> {
  // The v1 client validates each result against the outputSchema it was shown: success proves it matches.
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === 'get_weather')?.outputSchema).toMatchObject({ type: 'object', required: ['city', 'temperature', 'conditions'] });
  expect(tools.find((t) => t.name === 'get_temperature')?.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'integer' } }, required: ['result'] });
  const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  expect(weather.structuredContent).toEqual({ city: 'Paris', temperature: 17, conditions: 'cloudy' });
  expect(weather.content).toEqual([{ type: 'text', text: '{"city":"Paris","temperature":17,"conditions":"cloudy"}' }]);
  expect((await client.callTool({ name: 'get_temperature', arguments: { city: 'Oslo' } })).structuredContent).toEqual({ result: -3 });
  expect((await client.callTool({ name: 'station_report', arguments: {} })).structuredContent).toEqual({ station: 'LFPG', status: 'online', temperature_c: 17 });
  const humidity = await client.callTool({ name: 'get_humidity', arguments: {} });
  expect(humidity.isError).toBe(true);
}

async function bridgedCount(gw: TestGateway): Promise<{ labels: Record<string, unknown>; value: number }[]> {
  return (await gw.metrics.bridgedSessions.get()).values.map((v) => ({ labels: v.labels, value: v.value }));
}

describe('a text-only server on SDK 1.10.2 (2024-11-05) behind the gateway', () => {
  for (const kind of ['stdio', 'http', 'sse'] as const) {
    it(`${kind}: a 2025-11-25 client is answered 2025-11-25 and gets schemas and structuredContent`, async () => {
      const gw = await gatewayFor(kind);
      const { client, revision } = await connectModern(gw.url('/legacy/mcp'));
      expect(revision()).toBe('2025-11-25');
      expect(client.getServerVersion()).toMatchObject({ name: 'legacy-text-sdk-1-10' });
      await expectStructured(client);
      expect(await bridgedCount(gw)).toEqual([{ labels: { upstream: 'legacy', from: '2025-11-25', to: '2024-11-05' }, value: 1 }]);
      expect(gw.logs.filter((l) => l.msg === 'session bridged: the client is answered its own revision')).toEqual([
        expect.objectContaining({ upstream: 'legacy', clientRevision: '2025-11-25', upstreamRevision: '2024-11-05' }),
      ]);
      // Every kind logs the initialize the same way: governed by the default, with what the client asked for.
      expect(gw.logs.filter((l) => l.msg === 'request' && l.method === 'initialize')).toEqual([
        expect.objectContaining({ upstream: 'legacy', revision: '2025-03-26', revisionSource: 'default', requested: '2025-11-25', status: 200 }),
      ]);
    });

    it(`${kind}: a 2025-03-26 client gets no schemas, no structuredContent, and results it was never shown a schema for untouched`, async () => {
      const gw = await gatewayFor(kind);
      const client = await connectEraClient(gw.url('/legacy/mcp'), '2025-03-26');
      const list = (await client.listTools()).tools as { name: string; outputSchema?: unknown }[];
      expect(list.every((t) => t.outputSchema === undefined)).toBe(true);
      const humidity = await client.callTool('get_humidity');
      expect(humidity).toEqual({ content: [{ type: 'text', text: 'n/a' }] });
      expect(await bridgedCount(gw)).toEqual([]);
      // Still counted, as the mode the client got it in.
      const outcomes = (await gw.metrics.retrofits.get()).values.map((v) => v.labels);
      expect(outcomes).toContainEqual(expect.objectContaining({ tool: 'get_humidity', outcome: 'invalid', mode: 'unseen' }));
    });
  }

  it('legacy HTTP+SSE clients are bridged too (the v1 SSE client asks for 2025-11-25)', async () => {
    const gw = await gatewayFor('sse');
    const client = new Client({ name: 'sse-modern', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new SSEClientTransport(new URL(gw.url('/legacy/mcp'))));
    await expectStructured(client);
  });

  it('stdio: a v2 client in auto negotiation is served 2026-07-28 on the gateway\'s pooled sessions', async () => {
    const gw = await gatewayFor('stdio');
    const client = new ClientV2({ name: 'auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(gw.url('/legacy/mcp'))));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'get_weather')?.outputSchema).toMatchObject({ type: 'object' });
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(weather.structuredContent).toEqual({ city: 'Oslo', temperature: -3, conditions: 'snow' });
    // No client session: nothing was bridged, the gateway's pooled session holds the upstream's revision.
    expect(await bridgedCount(gw)).toEqual([]);
  });

  it('bridge: false leaves the session at the upstream\'s revision (no schemas, no structuredContent)', async () => {
    const gw = await gatewayFor('stdio', { bridge: false });
    const { client, revision } = await connectModern(gw.url('/legacy/mcp'));
    expect(revision()).toBe('2024-11-05');
    const { tools } = await client.listTools();
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
    expect((await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } })).structuredContent).toBeUndefined();
  });
});

describe('a server on SDK 1.13.3 (2025-06-18) behind the gateway', () => {
  it('is not bridged: a 2025-11-25 client adopts 2025-06-18 and still gets the retrofit', async () => {
    const server = await startLegacySdkServer('http', 'sdk-1-13');
    const gw = await startGateway(gatewayConfig([httpUpstream('legacy', server.url, { tools: LEGACY_TOOLS })]));
    const { client, revision } = await connectModern(gw.url('/legacy/mcp'));
    expect(revision()).toBe('2025-06-18');
    await expectStructured(client);
    expect(await bridgedCount(gw)).toEqual([]);
  });
});

describe('two gateway replicas in front of one HTTP upstream, no sticky sessions', () => {
  it('the client alternating between them is bridged on both', async () => {
    const server = await startLegacySdkServer('http');
    const config = gatewayConfig([httpUpstream('legacy', server.url, { tools: LEGACY_TOOLS })]);
    const replicas = [await startGateway(config), await startGateway(config)];
    let turn = 0;
    const alternate = (url: string | URL, init?: RequestInit): Promise<Response> => {
      const target = new URL(String(url));
      const replica = new URL(replicas[turn++ % 2]!.origin);
      target.host = replica.host;
      return fetch(target, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(replicas[0]!.url('/legacy/mcp')), { fetch: alternate });
    const client = new Client({ name: 'balanced', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(transport);
    expect(transport.protocolVersion).toBe('2025-11-25');
    await expectStructured(client);
    // Both replicas served requests of the session.
    for (const replica of replicas) expect(replica.logs.filter((l) => l.msg === 'request' && l.method === 'tools/call').length).toBeGreaterThan(0);
  });
});
