/**
 * A real v1 SDK McpServer on Streamable HTTP (node http server, port 0), stateful, with tools, a resource,
 * a prompt, logging, progress and an elicitation round trip. `jsonResponse` switches the transport to
 * enableJsonResponse; `eventStore` makes streams resumable (Last-Event-ID), and `retryInterval` is the `retry:` of
 * their priming events.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { listen, readBody, type Listening } from './listen.js';

export interface V1Server extends Listening {
  /** `origin + /mcp` */
  readonly url: string;
  /** Live transports by session id. */
  readonly sessions: Map<string, StreamableHTTPServerTransport>;
}

function buildServer(): McpServer {
  const server = new McpServer({ name: 'v1-test', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { description: 'echo text', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('progress', { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
    }
    return { content: [{ type: 'text', text: `done ${steps}` }] };
  });
  server.registerTool('log', { inputSchema: { message: z.string() } }, async ({ message }, extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: message } });
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  server.registerTool('ask', { inputSchema: {} }, async () => {
    const answer = await server.server.elicitInput({
      message: 'your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return { content: [{ type: 'text', text: `hello ${String(answer.content?.name)} (${answer.action})` }] };
  });
  server.registerResource('greeting', 'mem://greeting', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from a resource' }],
  }));
  server.registerPrompt('greet', { argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}` } }],
  }));
  return server;
}

function reject(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

/** `build` replaces the default server (echo, progress, log, ask, a resource, a prompt) with the caller's own. */
export async function startV1Server(options: { jsonResponse?: boolean; eventStore?: boolean; retryInterval?: number; build?: () => McpServer } = {}): Promise<V1Server> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (existing) {
      const body = req.method === 'POST' ? (JSON.parse((await readBody(req)).toString('utf8')) as unknown) : undefined;
      await existing.handleRequest(req, res, body);
      return;
    }
    if (typeof sid === 'string') return reject(res, 404, 'Session not found');
    if (req.method !== 'POST') return reject(res, 400, 'Mcp-Session-Id header is required');
    const body = JSON.parse((await readBody(req)).toString('utf8')) as unknown;
    if (!isInitializeRequest(body)) return reject(res, 400, 'Mcp-Session-Id header is required');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: options.jsonResponse ?? false,
      ...(options.eventStore && { eventStore: new InMemoryEventStore() }),
      ...(options.retryInterval !== undefined && { retryInterval: options.retryInterval }),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await (options.build ?? buildServer)().connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const listening = await listen((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) reject(res, 500, String(err));
    });
  });
  return { ...listening, url: `${listening.origin}/mcp`, sessions };
}
