/**
 * @modelcontextprotocol/server-everything (a real published server) in `stdio` mode through the gateway:
 * a v1 SDK client and a v2 SDK client list and call tools, and the same client script gives identical
 * results direct (StdioClientTransport) and through the gateway — including progress notifications and
 * the child's environment, since the gateway passes children the same environment the SDK does.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { EVERYTHING_SERVER, startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

function startEverything(): Promise<StdioGateway> {
  return startStdioGateway({ name: 'everything', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] });
}

/**
 * The script both sides run; everything it returns must be equal. Only the first progress notification is
 * compared: a direct stdio v1 client sometimes drops the one the server sends right before its result.
 */
async function script(client: Client): Promise<unknown> {
  const progress: unknown[] = [];
  const tools = await client.listTools();
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello through the gateway' } });
  const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
  const structured = await client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } });
  const env = await client.callTool({ name: 'get-env', arguments: {} });
  const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.1, steps: 2 } }, undefined, { onprogress: (p) => progress.push(p) });
  const invalid = await client.callTool({ name: 'get-sum', arguments: { a: 'x' } }).catch((err: { code?: number }) => ({ rejected: err.code }));
  const prompts = await client.listPrompts();
  const resources = await client.listResources();
  const templates = await client.listResourceTemplates();
  return { tools, echo, sum, structured, env, long, progress: progress.slice(0, 1), invalid, prompts, resources, templates, server: client.getServerVersion(), caps: client.getServerCapabilities() };
}

async function run(transport: Transport): Promise<unknown> {
  const client = new Client({ name: 'differential', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(transport);
  return script(client);
}

describe('server-everything over stdio through the gateway', () => {
  it('gives a v1 client exactly what it gets when it spawns the server itself', async () => {
    const gateway = await startEverything();
    const direct = await run(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore' }));
    const proxied = await run(new StreamableHTTPClientTransport(new URL(gateway.url)));
    expect((proxied as { tools: { tools: unknown[] } }).tools.tools.length).toBeGreaterThan(5);
    expect((proxied as { progress: unknown[] }).progress).toEqual([{ progress: 1, total: 2 }]);
    expect(proxied).toEqual(direct);
  });

  it('serves a v2 client, in legacy mode (a session) and with auto version negotiation (2026-07-28, pooled)', async () => {
    const gateway = await startEverything();
    for (const [versionNegotiation, revision] of [[undefined, '2025-11-25'], [{ mode: 'auto' as const }, '2026-07-28']] as const) {
      const client = new ClientV2({ name: 'v2', version: '1.0.0' }, versionNegotiation ? { versionNegotiation } : {});
      onTestFinished(() => client.close());
      await client.connect(new StreamableHTTPClientTransportV2(new URL(gateway.url)));
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('get-sum');
      const sum = await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
      expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 1 and 2 is 3.' }]);
    }
    expect(gateway.routes.sessions()).toBe(1);
    expect(gateway.routes.counts!()).toMatchObject({ pooled: 1 });
  });
});
