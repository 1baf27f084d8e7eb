/**
 * The same retrofit as HTTP upstreams, on a real published stdio server: server-everything's text-only
 * tools get configured schemas (regex for "The sum of 2 and 40 is 42.", json for get-env's JSON text), and a
 * v1 and a v2 SDK client — both strict about outputSchema — list and call them and get structuredContent.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import type { ToolConfig } from '../../src/config/types.js';
import { EVERYTHING_SERVER, startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

const TOOLS: Record<string, ToolConfig> = {
  'get-sum': {
    outputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' }, sum: { type: 'number' } }, required: ['a', 'b', 'sum'] },
    extract: { format: 'regex', pattern: String.raw`The sum of (?<a>-?[\d.]+) and (?<b>-?[\d.]+) is (?<sum>-?[\d.]+)\.` },
  },
  'get-env': {
    outputSchema: { type: 'object', properties: { PATH: { type: 'string' }, DEMO_REGION: { type: 'string' } }, required: ['PATH', 'DEMO_REGION'] },
    extract: { format: 'json' },
  },
  // A scalar root: wrapped as {result: …} for 2025-era clients.
  echo: { outputSchema: { type: 'string', pattern: '^Echo: ' } },
};

function startEverything(): Promise<StdioGateway> {
  return startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'], env: { DEMO_REGION: 'eu-west' }, tools: TOOLS });
}

describe('server-everything over stdio with configured schemas', () => {
  it('gives a v1 client schemas in tools/list and structuredContent in results', async () => {
    const gateway = await startEverything();
    const client = new Client({ name: 'retrofit-v1', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));

    const { tools } = await client.listTools();
    const sumTool = tools.find((t) => t.name === 'get-sum');
    expect(sumTool?.outputSchema).toMatchObject({ type: 'object', required: ['a', 'b', 'sum'] });
    expect(tools.find((t) => t.name === 'echo')?.outputSchema).toMatchObject({ type: 'object', properties: { result: { type: 'string' } } });

    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ a: 2, b: 40, sum: 42 });
    expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 2 and 40 is 42.' }]);
    const env = await client.callTool({ name: 'get-env', arguments: {} });
    expect(env.structuredContent).toMatchObject({ DEMO_REGION: 'eu-west', PATH: process.env.PATH });
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(echo.structuredContent).toEqual({ result: 'Echo: hi' });

    const outcomes = (await gateway.metrics.retrofits.get()).values.map((v) => v.labels);
    expect(outcomes).toContainEqual({ upstream: 'everything', tool: 'get-sum', outcome: 'extracted', format: 'regex', mode: 'applied' });
  });

  it('gives a v2 client the same', async () => {
    const gateway = await startEverything();
    const client = new ClientV2({ name: 'retrofit-v2', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransportV2(new URL(gateway.url)));
    await client.listTools();
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 1.5, b: 2 } });
    expect(sum.structuredContent).toEqual({ a: 1.5, b: 2, sum: 3.5 });
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'v2' } });
    expect(echo.structuredContent).toEqual({ result: 'Echo: v2' });
  });
});
