/**
 * After a reload that changes an upstream's tool schemas, clients holding a server stream open get
 * `notifications/tools/list_changed` on it: the GET stream the gateway relays from a Streamable HTTP
 * upstream (the gateway injects the event), a stdio session's GET stream (through its transport), and a
 * legacy HTTP+SSE stream once it announced its endpoint.
 * The streams stay open and the stdio session keeps its child.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { startEverythingSse } from '../helpers/everything-sse.js';
import { startServe } from '../helpers/serve.js';
import { startV1Server } from '../helpers/v1-server.js';
import { connectV1Client } from '../helpers/v1-client.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function configText(url: string, title: string, sse: string): string {
  return `
upstreams:
  web:
    url: ${url}
    tools:
      echo: { outputSchema: { type: object, title: ${title} } }
  local:
    command: ${process.execPath}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
    tools:
      echo: { outputSchema: { type: object, title: ${title} } }
  legacy:
    sse: ${sse}
    tools:
      echo: { outputSchema: { type: object, title: ${title} } }
`;
}

/** Initialize a session over raw HTTP and open its GET stream; returns a reader of the stream's text. */
async function openServerStream(url: string): Promise<{ session: string; next: (until: (text: string) => boolean) => Promise<string>; close: () => Promise<void> }> {
  const init = await fetch(url, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const session = init.headers.get('mcp-session-id') ?? '';
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  const initialized = await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  expect(initialized.status).toBe(202);
  const controller = new AbortController();
  const stream = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toContain('text/event-stream');
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  return {
    session,
    async next(until) {
      while (!until(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; got ${JSON.stringify(text)}`);
        text += value;
      }
      return text;
    },
    async close() {
      controller.abort();
      await reader.cancel().catch(() => {});
    },
  };
}

/** Open a legacy HTTP+SSE stream and read until its endpoint event. */
async function openLegacyStream(url: string): Promise<{ next: (until: (text: string) => boolean) => Promise<string>; close: () => Promise<void> }> {
  const controller = new AbortController();
  const stream = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  expect(stream.status).toBe(200);
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const next = async (until: (t: string) => boolean): Promise<string> => {
    while (!until(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended; got ${JSON.stringify(text)}`);
      text += value;
    }
    return text;
  };
  await next((t) => /event: endpoint\r?\ndata: [^\n]+\n\r?\n/.test(t));
  text = text.slice(text.search(/event: endpoint/)).replace(/^event: endpoint\r?\ndata: [^\n]+\n\r?\n/, '');
  return {
    next,
    async close() {
      controller.abort();
      await reader.cancel().catch(() => {});
    },
  };
}

/** The JSON-RPC messages of the `data:` lines received so far. */
function messages(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    // Priming events (2025-11-25 resumable streams) carry empty data.
    .filter((l) => l.startsWith('data: ') && l.length > 'data: '.length)
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

const listChanged = (text: string): boolean => messages(text).some((m) => m.method === 'notifications/tools/list_changed');

describe('tools/list_changed after a reload', () => {
  it('arrives on the relayed HTTP GET stream, the stdio session GET stream and the legacy SSE stream', async () => {
    const upstream = await startV1Server();
    const everything = await startEverythingSse();
    onTestFinished(() => everything.close());
    const gw = await startServe(configText(upstream.url, 'one', everything.url));
    const web = await openServerStream(`${gw.origin}/web/mcp`);
    const local = await openServerStream(`${gw.origin}/local/mcp`);
    const legacy = await openLegacyStream(`${gw.origin}/legacy/mcp`);
    try {
      // Same tools: nothing to tell anyone.
      expect(await gw.sighup()).toMatchObject({ ok: true, toolsChanged: [] });

      gw.write(configText(upstream.url, 'two', everything.url));
      expect(await gw.sighup()).toMatchObject({ ok: true, toolsChanged: ['web', 'local', 'legacy'] });
      const webText = await web.next(listChanged);
      const localText = await local.next(listChanged);
      expect(messages(webText)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
      expect(messages(localText)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
      // The legacy stream also carries the upstream's own notifications: the injected one is among them.
      expect(listChanged(await legacy.next(listChanged))).toBe(true);
      expect(gw.logs.filter((l) => l.msg === 'tools changed: notifications/tools/list_changed sent').map((l) => [l.upstream, l.streams])).toEqual([
        ['web', 1],
        ['local', 1],
        ['legacy', 1],
      ]);

      // The stdio session survived the reload with its child: a tools/list on it shows the new schema.
      const list = await fetch(`${gw.origin}/local/mcp`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'mcp-session-id': local.session, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      // The session answers as JSON, or as SSE when a notification came first: both are Streamable HTTP.
      const body = list.headers.get('content-type') === 'application/json' ? [(await list.json()) as Record<string, unknown>] : messages(await list.text());
      const listed = body[0] as { result: { tools: { name: string; outputSchema?: { title?: string } }[] } };
      expect(listed.result.tools.find((t) => t.name === 'echo')?.outputSchema?.title).toBe('two');
    } finally {
      await web.close();
      await local.close();
      await legacy.close();
    }
  });

  it('arrives when only the client profiles changed, so a strict v1 client lists again and takes what its new profile serves', async () => {
    const upstream = await startV1Server();
    const base = `upstreams:\n  web:\n    url: ${upstream.url}\n    tools:\n      echo: { outputSchema: { type: object } }\n`;
    const gw = await startServe(base);
    const { client } = await connectV1Client(`${gw.origin}/web/mcp`);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    expect((await client.listTools()).tools.find((t) => t.name === 'echo')?.outputSchema).toEqual({ type: 'object' });
    // The v1 client opens its GET stream once initialized; a call through the session shows it is up.
    expect((await client.callTool({ name: 'echo', arguments: { text: '{"a":1}' } })).structuredContent).toEqual({ a: 1 });

    gw.write(`clients:\n  - name: plain\n    match: { name: v1-test-client }\n    outputSchema: strip\n${base}`);
    expect(await gw.sighup()).toMatchObject({ ok: true, toolsChanged: ['web'] });
    await expect.poll(() => changed).toBe(1);
    expect((await client.listTools()).tools.find((t) => t.name === 'echo')?.outputSchema).toBeUndefined();
    const result = await client.callTool({ name: 'echo', arguments: { text: '{"a":1}' } });
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: '{"a":1}' }]);
  });
});
