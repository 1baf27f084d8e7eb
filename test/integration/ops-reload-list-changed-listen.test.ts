/**
 * 2026-07-28 clients have no GET stream: after a reload that changes an upstream's tools, a v2 client whose
 * `subscriptions/listen` stream opted in to `toolsListChanged` gets `notifications/tools/list_changed` on it,
 * stamped with its subscription id; a listen stream that did not opt in gets nothing, and keeps working. The
 * same for a 2026-07-28 client of a stdio upstream, which the gateway serves on pooled sessions itself.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startServe } from '../helpers/serve.js';
import { startV2Server } from '../helpers/v2-server.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';

function configText(url: string, title: string): string {
  return `
upstreams:
  v2:
    url: ${url}
    tools:
      add: { outputSchema: { type: number, title: ${title} } }
`;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'listener', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  onTestFinished(() => client.close());
  return client;
}

describe('tools/list_changed after a reload, on 2026-07-28 listen streams', () => {
  it('reaches the listen stream that asked for it, with its subscription id, and not the one that did not', async () => {
    const upstream = await startV2Server();
    const gw = await startServe(configText(upstream.url, 'one'));
    const url = `${gw.origin}/v2/mcp`;

    const wants = await connect(url);
    const received: unknown[] = [];
    const changed = new Promise<void>((resolve) =>
      wants.setNotificationHandler('notifications/tools/list_changed', (n) => {
        received.push(n);
        resolve();
      }),
    );
    const subscription = await wants.listen({ toolsListChanged: true });

    const other = await connect(url);
    let otherGot = 0;
    other.setNotificationHandler('notifications/tools/list_changed', () => void otherGot++);
    const quiet = await other.listen({});

    gw.write(configText(upstream.url, 'two'));
    expect(await gw.sighup()).toMatchObject({ ok: true, toolsChanged: ['v2'] });
    await changed;
    expect(received).toHaveLength(1);
    const meta = (received[0] as { params?: { _meta?: Record<string, unknown> } }).params?._meta ?? {};
    expect(Object.values(meta)).toHaveLength(1);
    expect(gw.logs.find((l) => l.msg === 'tools changed: notifications/tools/list_changed sent')).toMatchObject({ upstream: 'v2', streams: 1 });

    // The client lists again and sees the new schema; the other client was not told, and still works.
    const listed = await wants.listTools();
    expect(listed.tools.find((t) => t.name === 'add')?.outputSchema).toMatchObject({ title: 'two' });
    expect(await other.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({ structuredContent: 3 });
    expect(otherGot).toBe(0);

    await subscription.close();
    await quiet.close();
  });
});

describe('tools/list_changed after a reload, for 2026-07-28 listeners of a stdio upstream the gateway serves', () => {
  it('reaches the listener, and the next list shows the new schema, natural root and all', async () => {
    const stdio = (title: string): string => `
upstreams:
  local:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
    tools:
      recall: { outputSchema: { type: array, title: ${title} } }
`;
    const gw = await startServe(stdio('one'));
    const client = await connect(`${gw.origin}/local/mcp`);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
    const subscription = await client.listen({ toolsListChanged: true });
    expect((await client.listTools()).tools.find((t) => t.name === 'recall')?.outputSchema).toEqual({ type: 'array', title: 'one' });
    gw.write(stdio('two'));
    expect(await gw.sighup()).toMatchObject({ ok: true, toolsChanged: ['local'] });
    await changed;
    expect((await client.listTools()).tools.find((t) => t.name === 'recall')?.outputSchema).toEqual({ type: 'array', title: 'two' });
    await subscription.close();
  });
});
