/**
 * A real v2 SDK server (createMcpHandler, speaks 2026-07-28 and stateless 2025 traffic) on a node http
 * server on port 0. The handler is web-standard (Request → Response); this adapts it to node:http, the job
 * @modelcontextprotocol/node would do (not installed).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer, createMcpHandler, type ServerNotifier } from '@modelcontextprotocol/server';
import { onTestFinished } from 'vitest';
import { z } from 'zod';
import { listen, readBody, type Listening } from './listen.js';

/** Every request the v2 server received: method and MCP headers. */
export interface SeenRequest {
  readonly method: string;
  readonly headers: Record<string, string | undefined>;
}

function factory(): McpServer {
  const server = new McpServer({ name: 'v2-test', version: '2.0.0' });
  server.registerTool('add', { description: 'add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  // Never answers: its exchange only ends when the caller (or the gateway's timeout) gives up.
  server.registerTool('hang', { description: 'never returns' }, () => new Promise<never>(() => {}));
  return server;
}

async function toNode(handler: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> {
  const body = req.method === 'POST' ? await readBody(req) : undefined;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const response = await handler(new Request(new URL(req.url ?? '/', origin), { method: req.method ?? 'GET', headers, signal: controller.signal, ...(body && { body }) }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) res.write(r.value);
  res.end();
}

/**
 * `build` replaces the default tools (add, hang) with a server of the caller's own; `legacy: 'reject'` makes it a
 * server of 2026-07-28 only (initialize and every session revision refused with 400 / -32022).
 */
export async function startV2Server(build: () => McpServer = factory, options: { legacy?: 'reject' | 'stateless' } = {}): Promise<Listening & { url: string; seen: SeenRequest[]; notify: ServerNotifier }> {
  const handler = createMcpHandler(build, options as never);
  onTestFinished(() => handler.close());
  const seen: SeenRequest[] = [];
  let origin = '';
  const listening = await listen((req, res) => {
    seen.push({
      method: req.method ?? '',
      headers: {
        'mcp-method': req.headers['mcp-method'] as string | undefined,
        'mcp-name': req.headers['mcp-name'] as string | undefined,
        'mcp-protocol-version': req.headers['mcp-protocol-version'] as string | undefined,
        host: req.headers.host,
      },
    });
    toNode(handler.fetch, req, res, origin).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.destroy();
    });
  });
  origin = listening.origin;
  return { ...listening, url: `${listening.origin}/mcp`, seen, notify: handler.notify };
}
