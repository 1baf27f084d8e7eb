import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startEverything } from '../helpers/everything.js';
import { startGateway } from '../helpers/gateway.js';

/** The same client script, run against any URL; returns everything it observed, in order. */
async function script(url: string): Promise<Record<string, unknown>> {
  const client = new Client({ name: 'differential', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  try {
    const progress: unknown[] = [];
    const firstResource = (await client.listResources()).resources[0];
    const observed: Record<string, unknown> = {
      server: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
      tools: await client.listTools(),
      echo: await client.callTool({ name: 'echo', arguments: { message: 'différentiel ✓' } }),
      sum: await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } }),
      structured: await client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } }),
      image: await client.callTool({ name: 'get-tiny-image', arguments: {} }),
      badArgs: await client.callTool({ name: 'get-sum', arguments: { a: 'x' } }),
      long: await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.1, steps: 2 } }, undefined, {
        onprogress: (p) => void progress.push(p),
      }),
      progress,
      firstResource,
      read: firstResource ? await client.readResource({ uri: firstResource.uri }) : undefined,
      templates: await client.listResourceTemplates(),
      prompts: await client.listPrompts(),
      prompt: await client.getPrompt({ name: 'simple-prompt' }),
      ping: await client.ping(),
      unknownTool: await client.callTool({ name: 'no-such-tool', arguments: {} }).catch((err: unknown) => String(err)),
    };
    await transport.terminateSession();
    return observed;
  } finally {
    await client.close();
  }
}

describe('server-everything direct vs through the gateway', () => {
  it('gives identical results for the same client script', async () => {
    const everything = await startEverything();
    const gw = await startGateway(gatewayConfig([httpUpstream('everything', everything.url)]));
    const direct = await script(everything.url);
    const proxied = await script(gw.url('/everything/mcp'));
    expect((direct.tools as { tools: unknown[] }).tools.length).toBeGreaterThan(5);
    expect((direct.progress as unknown[]).length).toBe(2);
    expect(proxied).toEqual(direct);
  });
});
