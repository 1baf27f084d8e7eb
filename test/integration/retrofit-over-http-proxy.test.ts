import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

/** A stateless v1 server whose only tool answers JSON as text and declares no outputSchema. */
async function textOnlyServer(jsonResponse: boolean): Promise<string> {
  const up = await listen((req, res) => {
    void (async () => {
      const server = new McpServer({ name: 'text-only', version: '1.0.0' });
      server.registerTool('weather', { description: 'weather as text' }, async () => ({ content: [{ type: 'text', text: '{"city":"Oslo","temp":"-3"}' }] }));
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: jsonResponse }) // no sessionIdGenerator: stateless;
      await server.connect(transport);
      const body = req.method === 'POST' ? (JSON.parse((await readBody(req)).toString()) as unknown) : undefined;
      await transport.handleRequest(req, res, body);
    })();
  });
  return `${up.origin}/mcp`;
}

const schema: JsonObject = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'integer' } }, required: ['city', 'temp'] };

describe('the retrofit engine behind the HTTP proxy (default rewriter, configured policy)', () => {
  it.each([
    ['SSE', false],
    ['JSON', true],
  ])('injects the outputSchema and turns text into validated structuredContent (%s responses)', async (_mode, jsonResponse) => {
    const url = await textOnlyServer(jsonResponse);
    const gw = await startGateway(gatewayConfig([httpUpstream('w', url, { tools: { weather: { outputSchema: schema } } })]));
    const client = new Client({ name: 'strict', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/w/mcp'))));
    onTestFinished(() => client.close());

    const { tools } = await client.listTools();
    expect(tools[0]?.outputSchema).toMatchObject(schema);
    // The v1 client validates structuredContent against the listed schema: this would throw if it were missing.
    const result = await client.callTool({ name: 'weather', arguments: {} });
    expect(result.structuredContent).toEqual({ city: 'Oslo', temp: -3 });
    expect(result.content).toEqual([{ type: 'text', text: '{"city":"Oslo","temp":"-3"}' }]);
    expect(await gw.metrics.registry.getSingleMetricAsString('mcp_retrofit_retrofit_outcomes_total')).toContain('upstream="w",tool="weather",outcome="extracted"');
  });
});
