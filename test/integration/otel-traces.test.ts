/**
 * OpenTelemetry traces (issue 27) into a real OTLP/HTTP receiver, in both encodings: a v1 client whose HTTP
 * requests carry a `traceparent`, through the gateway, to a real v1 SDK server over Streamable HTTP and to a
 * stdio server. Each JSON-RPC request gets a SERVER span named `{method} {target}` continuing the client's
 * trace, with the conventions' attributes; a CLIENT child span for the upstream exchange; the upstream
 * receives the CLIENT span's context (in `params._meta` and, over HTTP, the `traceparent` header); a tool's
 * `isError` answer is `error.type=tool_error`; the retrofit outcome is on the tools/call span.
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { startEverythingSse } from '../helpers/everything-sse.js';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { REPO } from '../helpers/stdio-gateway.js';
import { startV1Server } from '../helpers/v1-server.js';
import { tempFiles } from '../unit/config/helpers.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;
/** The trace a legacy HTTP+SSE client's POSTs name in their header. */
const LEGACY_TRACE = '5a3c0e1f2b4d6e8f9a0b1c2d3e4f5a6b';
/** The trace a 2026-07-28 client names in each request's `_meta`. */
const META_TRACE = '0af7651916cd43dd8448eb211c80319c';
const SERVER = 2;
const CLIENT = 3;

for (const protocol of ['http/json', 'http/protobuf'] as const) {
  describe(`traces over OTLP ${protocol}`, () => {
    it('a SERVER span per request continuing the client\'s trace, a CLIENT span the upstream continues, tool errors and the retrofit', async () => {
      const seen: { meta?: Record<string, unknown>; header?: string }[] = [];
      const upstream = await startV1Server({
        build: () => {
          const server = new McpServer({ name: 'traced', version: '1.0.0' });
          server.registerTool('weather', { inputSchema: { city: z.string() } }, async ({ city }, extra) => {
            seen.push({ meta: extra._meta as Record<string, unknown> });
            return { content: [{ type: 'text', text: JSON.stringify({ city, t: 17 }) }] };
          });
          server.registerTool('fail', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'no such city' }], isError: true }));
          return server;
        },
      });
      const receiver = await startOtlpReceiver();
      const everything = await startEverythingSse();
      onTestFinished(() => everything.close());
      const dir = await tempFiles({});
      const file = join(dir, 'gateway.yaml');
      const demo = resolve(REPO, 'dist/demo/server.js');
      await writeFile(
        file,
        `telemetry: { endpoint: "${receiver.endpoint}", protocol: ${protocol}, serviceName: retrofit-under-test, metrics: ${protocol === 'http/json'} }
upstreams:
  http:
    url: ${upstream.url}
    tools:
      weather:
        extract: { format: json }
        outputSchema: { type: object, properties: { city: { type: string }, t: { type: integer } }, required: [city, t] }
  stdio:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(demo)}]
    tools:
      get_temperature: { outputSchema: { type: number } }
  legacy:
    sse: ${everything.url}
`,
      );
      const gateway = await startGateway(await loadConfig(file));
      const connect = async (path: string): Promise<Client> => {
        const client = new Client({ name: 'traced-client', version: '1.0.0' });
        onTestFinished(() => client.close());
        await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url(path)), { requestInit: { headers: { traceparent: TRACEPARENT } } }));
        return client;
      };
      const http = await connect('/http/mcp');
      expect((await http.callTool({ name: 'weather', arguments: { city: 'Oslo' } })).structuredContent).toEqual({ city: 'Oslo', t: 17 });
      expect((await http.callTool({ name: 'fail', arguments: {} })).isError).toBe(true);
      const stdio = await connect('/stdio/mcp');
      await stdio.callTool({ name: 'get_temperature', arguments: { city: 'Paris' } });
      await http.close();
      await stdio.close();
      // A 2026-07-28 client (pooled sessions) whose requests carry their trace context in `_meta`.
      const withMeta = async (url: string | URL, init?: RequestInit): Promise<Response> => {
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { params?: { _meta?: Record<string, unknown> } }) : undefined;
        if (body?.params) body.params._meta = { ...body.params._meta, traceparent: `00-${META_TRACE}-b7ad6b7169203331-01` };
        return fetch(url, body ? { ...init, body: JSON.stringify(body) } : init);
      };
      const modern = new V2Client({ name: 'traced-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      onTestFinished(() => modern.close());
      await modern.connect(new V2Transport(new URL(gateway.url('/stdio/mcp')), { fetch: withMeta }));
      await modern.callTool({ name: 'get_temperature', arguments: { city: 'Lisbon' } });
      await modern.close();
      // A legacy HTTP+SSE client: its POSTs carry the header.
      const legacy = new Client({ name: 'traced-legacy', version: '1.0.0' });
      onTestFinished(() => legacy.close());
      await legacy.connect(new SSEClientTransport(new URL(gateway.url('/legacy/mcp')), { requestInit: { headers: { traceparent: `00-${LEGACY_TRACE}-1111111111111111-01` } } }));
      await legacy.callTool({ name: 'echo', arguments: { message: 'hi' } });
      expect((await legacy.callTool({ name: 'no_such_tool', arguments: {} })).isError).toBe(true);
      await legacy.close();
      // Closing the gateway flushes the batch.
      await gateway.app.close();

      const spans = receiver.spans;
      expect(receiver.contentTypes.every((t) => t === (protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'))).toBe(true);
      const server = (name: string): ReceivedSpan[] => spans.filter((s) => s.kind === SERVER && s.name === name);
      const child = (of: ReceivedSpan): ReceivedSpan | undefined => spans.find((s) => s.kind === CLIENT && s.parentSpanId === of.spanId);

      // One SERVER span per request, in the client's trace, its parent the client's span.
      const weather = server('tools/call weather');
      expect(weather).toHaveLength(1);
      const w = weather[0]!;
      expect({ trace: w.traceId, parent: w.parentSpanId, service: w.service }).toEqual({ trace: TRACE_ID, parent: CLIENT_SPAN, service: 'retrofit-under-test' });
      expect(w.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'weather',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2025-11-25',
        'network.transport': 'tcp',
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(upstream.url).port),
        'mcp_retrofit.outcome': 'extracted',
        'mcp_retrofit.format': 'json',
        'mcp_retrofit.failures': 0,
        'mcp_retrofit.text_bytes': '{"city":"Oslo","t":17}'.length,
        'mcp_retrofit.result_bytes': JSON.stringify({ content: [{ type: 'text', text: '{"city":"Oslo","t":17}' }], structuredContent: { city: 'Oslo', t: 17 } }).length,
      });
      expect(typeof w.attributes['mcp_retrofit.duration_ms']).toBe('number');
      expect(typeof w.attributes['jsonrpc.request.id']).toBe('string');
      // Content only when opted in (below).
      expect([w.attributes['gen_ai.tool.call.arguments'], w.attributes['gen_ai.tool.call.result']]).toEqual([undefined, undefined]);
      expect(typeof w.attributes['mcp.session.id']).toBe('string');
      // Three sessions initialized: the two v1 clients and the legacy one (a 2026-07-28 client sends none).
      expect(server('initialize')).toHaveLength(3);

      // The CLIENT span of the upstream exchange; the upstream got its context in _meta.
      const wc = child(w);
      expect(wc?.traceId).toBe(TRACE_ID);
      expect(seen[0]?.meta?.traceparent).toBe(`00-${TRACE_ID}-${wc?.spanId}-01`);

      // isError: a failed operation though JSON-RPC succeeded.
      const fail = server('tools/call fail')[0];
      expect(fail?.attributes['error.type']).toBe('tool_error');
      expect(fail?.status).toBe(2);

      // stdio: pipe transport, no address; a CLIENT span under it too.
      const temp = server('tools/call get_temperature')[0];
      expect(temp?.attributes).toMatchObject({ 'network.transport': 'pipe', 'mcp_retrofit.outcome': 'extracted' });
      expect(temp?.traceId).toBe(TRACE_ID);
      expect(child(temp!)?.attributes['network.transport']).toBe('pipe');

      // 2026-07-28: the trace named in the request's _meta, on a pooled session.
      const modernCall = server('tools/call get_temperature').find((s) => s.traceId === META_TRACE);
      expect(modernCall?.attributes).toMatchObject({ 'mcp.protocol.version': '2026-07-28', 'network.transport': 'pipe', 'mcp_retrofit.outcome': 'extracted' });
      expect(modernCall?.parentSpanId).toBe('b7ad6b7169203331');
      // What the gateway answers itself (server/discover): a SERVER span and no upstream exchange under it.
      const discover = server('server/discover');
      expect(discover.length).toBeGreaterThanOrEqual(1);
      expect(discover.every((d) => d.attributes['mcp.protocol.version'] === '2026-07-28' && child(d) === undefined)).toBe(true);

      // Legacy HTTP+SSE: the span of the POST that carried the call, in the client's trace.
      const legacyCall = server('tools/call echo').find((s) => s.traceId === LEGACY_TRACE);
      expect(legacyCall?.attributes).toMatchObject({ 'network.transport': 'tcp', 'mcp.method.name': 'tools/call', 'server.port': Number(new URL(everything.url).port) });
      expect(legacyCall?.parentSpanId).toBe('1111111111111111');
      // Its span ended with the answer on the SSE stream, so it knows what the answer said (its POST only got 202).
      const legacyError = server('tools/call no_such_tool').find((s) => s.traceId === LEGACY_TRACE);
      expect([legacyError?.attributes['error.type'], legacyError?.status]).toEqual(['tool_error', 2]);

      // Metrics per the same conventions, over OTLP beside /metrics (the JSON run exports them).
      if (protocol !== 'http/json') return;
      const point = (metric: string, attrs: Record<string, unknown>) => receiver.points.find((p) => p.metric === metric && Object.entries(attrs).every(([k, v]) => p.attributes[k] === v));
      expect(point('mcp.server.operation.duration', { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'weather', 'network.transport': 'tcp' })).toMatchObject({ unit: 's', count: 1 });
      expect(point('mcp.server.operation.duration', { 'gen_ai.tool.name': 'fail', 'error.type': 'tool_error' })?.count).toBe(1);
      expect(point('mcp.client.operation.duration', { 'gen_ai.tool.name': 'weather', 'server.address': '127.0.0.1' })?.count).toBe(1);
      expect(point('mcp.server.session.duration', { 'network.transport': 'pipe' })?.count).toBeGreaterThanOrEqual(1);
    });
  });
}

describe('telemetry.captureContent', () => {
  it('records arguments and the result on the tools/call span, the config\'s secrets and the arguments\' values in the result redacted', async () => {
    const upstream = await startV1Server({
      build: () => {
        const server = new McpServer({ name: 'traced', version: '1.0.0' });
        server.registerTool('weather', { inputSchema: { city: z.string() } }, async ({ city }) => ({ content: [{ type: 'text', text: `Weather for ${city} (key s3cr3t-api-key-123): cold` }] }));
        return server;
      },
    });
    const receiver = await startOtlpReceiver();
    const dir = await tempFiles({});
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, `telemetry: { endpoint: "${receiver.endpoint}", protocol: http/json, captureContent: true }\nupstreams:\n  http:\n    url: ${upstream.url}\n    headers: { X-Api-Key: "\${OTEL_TEST_KEY:-s3cr3t-api-key-123}" }\n`);
    const gateway = await startGateway(await loadConfig(file));
    const client = new Client({ name: 'c', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('/http/mcp'))));
    await client.callTool({ name: 'weather', arguments: { city: 'Reykjavik' } });
    await client.close();
    await gateway.app.close();
    const span = receiver.spans.find((x) => x.kind === SERVER && x.name === 'tools/call weather');
    expect(span?.attributes['gen_ai.tool.call.arguments']).toBe('{"city":"Reykjavik"}');
    expect(span?.attributes['gen_ai.tool.call.result']).toBe('Weather for REDACTED (key [Redacted]): cold');
  });
});

describe('strings a client chose, in spans and log lines', () => {
  it('are cut: span names at 128 characters a part, attribute values at 4,096, the request log line\'s at 256 (review finding)', async () => {
    const upstream = await startV1Server({
      build: () => new McpServer({ name: 'traced', version: '1.0.0' }),
    });
    const receiver = await startOtlpReceiver();
    const dir = await tempFiles({});
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, `telemetry: { endpoint: "${receiver.endpoint}", protocol: http/json }\nupstreams:\n  http:\n    url: ${upstream.url}\n`);
    const gateway = await startGateway(await loadConfig(file));
    const client = new Client({ name: 'c', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('/http/mcp'))));
    const name = 't'.repeat(300_000);
    // A server without tools refuses the call: the refusal is the upstream's, the span and log line are the gateway's.
    await expect(client.callTool({ name, arguments: {} })).rejects.toThrow(/Method not found/);
    await client.close();
    await gateway.app.close();
    const spans = receiver.spans.filter((x) => x.name.startsWith('tools/call t'));
    expect(spans.length).toBeGreaterThanOrEqual(1);
    for (const span of spans) {
      expect(span.name).toBe(`tools/call ${'t'.repeat(128)}…`);
      expect(String(span.attributes['gen_ai.tool.name']).length).toBe(4096);
    }
    const line = gateway.logs.find((l) => l.msg === 'request' && l.method === 'tools/call');
    expect(line?.tool).toBe(`${'t'.repeat(256)}…`);
  });
});
