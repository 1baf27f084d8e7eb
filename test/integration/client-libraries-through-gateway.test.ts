/**
 * The MCP client libraries agent developers use, each with the defaults its documentation shows for
 * Streamable HTTP, through the gateway in front of a text-only stdio server on SDK 1.10.2 (2024-11-05): each
 * hands the application the validated structured value the configured outputSchema makes of the text, where
 * that library surfaces typed output, and each ends up at the revision recorded here (the gateway's
 * mcp_retrofit_protocol_revisions_total and its per-request log line):
 *   @ai-sdk/mcp               tools({ schemas }) execute          2026-07-28 (server/discover probe)
 *   @langchain/mcp-adapters   ToolMessage artifact                2025-11-25 (v1 SDK session, bridged)
 *   @mastra/mcp               the tool's execute() return          2026-07-28 (probe)
 *   @openai/agents-core       useStructuredContent: true          2026-07-28 (probe)
 *   v1 SDK Client             callTool().structuredContent        2025-11-25 (bridged)
 *   v2 SDK Client (default)   callTool().structuredContent        2025-11-25 (legacy negotiation, bridged)
 *   v2 SDK Client (auto)      callTool().structuredContent        2026-07-28 (probe)
 * Two tools: get_weather answers JSON text, station_report `key: value` text that no client can read as JSON,
 * so only the gateway's structuredContent can give the object (@ai-sdk/mcp parses JSON text when there is none).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { LEGACY_SDK_SERVER, LEGACY_TOOLS } from '../helpers/legacy-sdk.js';
import { REPO, startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

const MODERN = '2026-07-28';
const BRIDGED = '2025-11-25';
const PARIS = { city: 'Paris', temperature: 17, conditions: 'cloudy' };
const STATION = { station: 'LFPG', status: 'online', temperature_c: 17 };

function legacyGateway(): Promise<StdioGateway> {
  return startStdioGateway({ name: 'legacy', command: process.execPath, args: [LEGACY_SDK_SERVER, 'stdio'], env: { SDK: 'sdk-1-10' }, cwd: REPO, tools: LEGACY_TOOLS });
}

interface Seen {
  /** Every {upstream, revision, source} the revisions counter counted. */
  readonly revisions: Record<string, unknown>[];
  /** The revision that governed each tools/call, from the gateway's request log lines. */
  readonly callRevisions: unknown[];
  /** The methods the client sent, as counted by the gateway. */
  readonly methods: unknown[];
}

function sorted<T>(values: T[]): T[] {
  return [...values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

async function seen(gateway: StdioGateway): Promise<Seen> {
  const revisions = (await gateway.metrics.revisions.get()).values.map((v) => ({ ...v.labels }));
  const callRevisions = gateway.logs.filter((l) => l.msg === 'request' && l.method === 'tools/call').map((l) => l.revision);
  const methods = [...new Set((await gateway.metrics.requests.get()).values.map((v) => v.labels.method))];
  return { revisions, callRevisions, methods };
}

/** A client that probed server/discover and was served 2026-07-28 on the gateway's pooled sessions. */
async function expectModern(gateway: StdioGateway, calls: number): Promise<void> {
  const s = await seen(gateway);
  expect(s.methods).toContain('server/discover');
  expect(s.methods).not.toContain('initialize');
  // Every request (discover, list, call) governed by the _meta envelope's revision.
  expect(s.revisions).toEqual([{ upstream: 'legacy', revision: MODERN, source: 'meta' }]);
  expect(s.callRevisions).toEqual(Array(calls).fill(MODERN));
}

/** A client that initialized a session at 2025-11-25, bridged over the upstream's 2024-11-05. */
async function expectBridged(gateway: StdioGateway, calls: number): Promise<void> {
  const s = await seen(gateway);
  expect(s.methods).toContain('initialize');
  // The initialize itself is governed by the default rule (no header yet); every request after it by the
  // MCP-Protocol-Version header of the revision the session was answered.
  expect(sorted(s.revisions)).toEqual(sorted([
    { upstream: 'legacy', revision: '2025-03-26', source: 'default' },
    { upstream: 'legacy', revision: BRIDGED, source: 'header' },
  ]));
  expect(s.callRevisions).toEqual(Array(calls).fill(BRIDGED));
  expect((await gateway.metrics.bridgedSessions.get()).values.map((v) => v.labels)).toContainEqual({ upstream: 'legacy', from: BRIDGED, to: '2024-11-05' });
}

/** The SDK clients validate a result against the outputSchema tools/list showed them: list first. */
async function expectListed(client: { listTools(): Promise<{ tools: { name: string; outputSchema?: unknown }[] }> }): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === 'get_weather')?.outputSchema).toEqual(LEGACY_TOOLS.get_weather!.outputSchema);
  expect(tools.find((t) => t.name === 'station_report')?.outputSchema).toEqual(LEGACY_TOOLS.station_report!.outputSchema);
}

describe('client libraries with their documented defaults, through the gateway to a 2024-11-05 stdio server', () => {
  it('@ai-sdk/mcp: the value tools({ schemas }) execute returns', async () => {
    const { createMCPClient } = await import('@ai-sdk/mcp');
    const { z } = await import('zod');
    const gateway = await legacyGateway();
    const client = await createMCPClient({ transport: { type: 'http', url: gateway.url } });
    onTestFinished(() => client.close());
    const tools = await client.tools({
      schemas: {
        get_weather: { inputSchema: z.object({ city: z.string() }), outputSchema: z.object({ city: z.string(), temperature: z.number(), conditions: z.string() }) },
        station_report: { inputSchema: z.object({}), outputSchema: z.object({ station: z.string(), status: z.string(), temperature_c: z.number() }) },
      },
    });
    const options = { toolCallId: 'c1', messages: [], context: {} };
    expect(await tools.get_weather!.execute!({ city: 'Paris' }, options)).toEqual(PARIS);
    // YAML text: without the gateway's structuredContent, @ai-sdk/mcp would throw (its fallback parses JSON).
    expect(await tools.station_report!.execute!({}, options)).toEqual(STATION);
    await expectModern(gateway, 2);
  });

  it('@langchain/mcp-adapters: the mcp_structured_content artifact of the ToolMessage', async () => {
    const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
    const { ToolMessage } = await import('@langchain/core/messages');
    const gateway = await legacyGateway();
    const client = new MultiServerMCPClient({ mcpServers: { legacy: { url: gateway.url } } });
    onTestFinished(() => client.close());
    const tools = await client.getTools();
    const call = async (name: string, args: Record<string, unknown>): Promise<unknown> => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
      // A tool call (as a model emits it) makes the tool answer a ToolMessage with content and artifact.
      const message: unknown = await tool.invoke({ type: 'tool_call', id: `call-${name}`, name, args });
      if (!ToolMessage.isInstance(message)) throw new Error(`not a ToolMessage: ${JSON.stringify(message)}`);
      const artifacts = message.artifact as { type: string; data?: unknown }[];
      return artifacts.find((a) => a.type === 'mcp_structured_content')?.data;
    };
    expect(await call('get_weather', { city: 'Paris' })).toEqual(PARIS);
    expect(await call('station_report', {})).toEqual(STATION);
    await expectBridged(gateway, 2);
  });

  it('@mastra/mcp: what the tool\'s execute() returns', async () => {
    const { MCPClient } = await import('@mastra/mcp');
    const gateway = await legacyGateway();
    const mcp = new MCPClient({ servers: { legacy: { url: new URL(gateway.url) } } });
    onTestFinished(() => mcp.disconnect());
    const tools = await mcp.listTools();
    const weather = tools.legacy_get_weather;
    const station = tools.legacy_station_report;
    if (!weather?.execute || !station?.execute) throw new Error(`tools: ${Object.keys(tools).join(', ')}`);
    // Mastra's docs call a tool directly with an empty context (`tool.execute?.(input, {})`); its types ask for
    // `observe`, which the runtime supplies when the caller does not.
    const context = {} as Parameters<typeof weather.execute>[1];
    expect(await weather.execute({ city: 'Paris' }, context)).toEqual(PARIS);
    expect(await station.execute({}, context)).toEqual(STATION);
    expect(mcp.getServerProtocolVersions()).toEqual({ legacy: MODERN });
    await expectModern(gateway, 2);
  });

  it('@openai/agents-core: MCPServerStreamableHttp with useStructuredContent: true', async () => {
    const { MCPServerStreamableHttp, RunContext, getAllMcpTools } = await import('@openai/agents-core');
    const gateway = await legacyGateway();
    const server = new MCPServerStreamableHttp({ url: gateway.url, name: 'legacy', useStructuredContent: true });
    await server.connect();
    onTestFinished(() => server.close());
    const runContext = new RunContext();
    const tools = await getAllMcpTools({ mcpServers: [server], runContext });
    const call = async (name: string, args: Record<string, unknown>): Promise<unknown> => {
      const tool = tools.find((t) => t.name === name);
      if (tool?.type !== 'function') throw new Error(`no function tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
      // The tool output the model is given: the structured value as JSON (the text block without the option).
      const output = await tool.invoke(runContext, JSON.stringify(args));
      return JSON.parse(String(output));
    };
    expect(await call('get_weather', { city: 'Paris' })).toEqual(PARIS);
    expect(await call('station_report', {})).toEqual(STATION);
    // The server's own call API hands it over too.
    expect((await server.callToolResult('get_weather', { city: 'Paris' })).structuredContent).toEqual(PARIS);
    await expectModern(gateway, 3);
  });

  it('the v1 SDK Client: callTool().structuredContent', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const gateway = await legacyGateway();
    const client = new Client({ name: 'v1', version: '1.0.0' });
    onTestFinished(() => client.close());
    const transport = new StreamableHTTPClientTransport(new URL(gateway.url));
    await client.connect(transport);
    expect(transport.protocolVersion).toBe(BRIDGED);
    await expectListed(client);
    expect((await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } })).structuredContent).toEqual(PARIS);
    expect((await client.callTool({ name: 'station_report', arguments: {} })).structuredContent).toEqual(STATION);
    await expectBridged(gateway, 2);
  });

  it('the v2 SDK Client, default options: callTool().structuredContent', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const gateway = await legacyGateway();
    const client = new Client({ name: 'v2', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe(BRIDGED);
    await expectListed(client);
    expect((await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } })).structuredContent).toEqual(PARIS);
    expect((await client.callTool({ name: 'station_report', arguments: {} })).structuredContent).toEqual(STATION);
    await expectBridged(gateway, 2);
  });

  it('the v2 SDK Client, versionNegotiation auto: callTool().structuredContent', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const gateway = await legacyGateway();
    const client = new Client({ name: 'v2-auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    await expectListed(client);
    expect((await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } })).structuredContent).toEqual(PARIS);
    expect((await client.callTool({ name: 'station_report', arguments: {} })).structuredContent).toEqual(STATION);
    await expectModern(gateway, 2);
  });
});
