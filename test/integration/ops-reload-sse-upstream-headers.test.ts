/**
 * A reload that rotates an `sse:` upstream's configured credential (`headers`), or turns on the gateway's own
 * bearer tokens, reaches the sessions already open: their next message carries the new credential, or no
 * longer the client's Authorization (the gateway's token from then on), for a Streamable HTTP client of the
 * gateway and for a legacy HTTP+SSE client alike. (Each held its own link to the upstream, opened with the headers of its time, and
 * used them until it ended.) The upstream is a legacy HTTP+SSE server whose one tool answers with the
 * Authorization its message arrived with.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve.js';

let upstream: Server;
let port = 0;

beforeAll(async () => {
  const streams = new Map<string, ServerResponse>();
  let sessions = 0;
  upstream = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/sse') {
      const session = String(++sessions);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: endpoint\ndata: /messages?session=${session}\n\n`);
      streams.set(session, res);
      res.on('close', () => streams.delete(session));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const stream = streams.get(new URL(req.url ?? '/', 'http://x').searchParams.get('session') ?? '');
      if (req.method !== 'POST' || !stream) return void res.writeHead(404).end();
      res.writeHead(202).end('Accepted');
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string };
      if (message.id === undefined) return;
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'raw-legacy', version: '1.0.0' } }
          : message.method === 'tools/list'
            ? { tools: [{ name: 'whoami', inputSchema: { type: 'object' } }] }
            : message.method === 'tools/call'
              ? { content: [{ type: 'text', text: req.headers.authorization ?? '(none)' }] }
              : {};
      stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as { port: number }).port;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const config = (token: string): string => `
upstreams:
  up:
    sse: http://127.0.0.1:${port}/sse
    headers: { Authorization: "Bearer ${token}" }
`;

async function whoami(client: Client): Promise<string> {
  const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
  return result.content[0]!.text;
}

const TRANSPORTS: [string, (url: URL, headers?: Record<string, string>) => Transport][] = [
  ['a Streamable HTTP client', (url, headers) => new StreamableHTTPClientTransport(url, headers && { requestInit: { headers } })],
  ['a legacy HTTP+SSE client', (url, headers) => new SSEClientTransport(url, headers && { requestInit: { headers } })],
];

describe('a reload that rotates an sse: upstream credential', () => {
  it.each(TRANSPORTS)('%s: the open session’s next message carries the new one', async (_label, transport) => {
    const served = await startServe(config('tokA'));
    const client = new Client({ name: 'rotation', version: '1.0.0' });
    await client.connect(transport(new URL(`${served.origin}/up/mcp`)));
    try {
      expect(await whoami(client)).toBe('Bearer tokA');
      served.write(config('tokB'));
      expect(await served.sighup()).toMatchObject({ ok: true });
      expect(await whoami(client)).toBe('Bearer tokB');
    } finally {
      await client.close();
    }
  });
});

describe('a reload that turns on the gateway\'s own bearer tokens', () => {
  it.each(TRANSPORTS)('%s: the open session’s next message no longer carries the client’s Authorization (now the gateway’s token)', async (_label, transport) => {
    const open = `
upstreams:
  up:
    sse: http://127.0.0.1:${port}/sse
`;
    const served = await startServe(open);
    const client = new Client({ name: 'rotation', version: '1.0.0' });
    await client.connect(transport(new URL(`${served.origin}/up/mcp`), { Authorization: 'Bearer gateway-token' }));
    try {
      // Without auth: the client's Authorization is the upstream's business, and forwarded.
      expect(await whoami(client)).toBe('Bearer gateway-token');
      served.write(`auth: { bearerTokens: ["gateway-token"] }\n${open}`);
      expect(await served.sighup()).toMatchObject({ ok: true });
      expect(await whoami(client)).toBe('(none)');
    } finally {
      await client.close();
    }
  });
});
