/**
 * Closing the app (as `serve` does on SIGTERM) ends the sessions' GET streams, gives in-flight calls the
 * grace period, answers what is still pending with an error, and stops every child.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { alive, firstText, startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

let gateway: StdioGateway | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await gateway?.close();
  client = undefined;
  gateway = undefined;
});

describe('stdio upstream: app close', () => {
  it('drains and stops every child when the Fastify app closes', async () => {
    gateway = await startStdioGateway({ stdio: { shutdownGraceMs: 100 } });
    client = new Client({ name: 'shutdown', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    const pid = Number(firstText(await client.callTool({ name: 'pid', arguments: {} })));
    const blocked = client.callTool({ name: 'block', arguments: {} });
    await gateway.waitForLog((l) => l.line === 'blocking');

    const rejected = expect(blocked).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('shutting down') });
    await gateway.app.close();
    await rejected;
    expect(alive(pid)).toBe(false);
    expect(gateway.routes.pids()).toEqual([]);
    expect(gateway.routes.sessions()).toBe(0);
  });
});
