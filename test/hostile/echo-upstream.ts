/**
 * A light raw Streamable HTTP upstream for load tests: sessions by id, answers JSON (or SSE when asked),
 * one text-only tool `whoami` whose text is JSON naming the session and echoing the caller's tag. Cheap
 * enough to take a thousand sessions on two busy cores, and honest: it really tracks sessions, so an answer
 * reaching the wrong client shows up as the wrong session id in it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, readBody, type Listening } from '../helpers/listen.js';

export interface EchoUpstream extends Listening {
  readonly url: string;
  /** Live session ids. */
  readonly sessions: Set<string>;
  /** Calls answered so far. */
  calls: number;
}

const TOOL = { name: 'whoami', description: 'who is calling', inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } };

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, sse = false): void {
  const text = JSON.stringify(body);
  if (sse) {
    res.writeHead(status, { 'content-type': 'text/event-stream', ...headers });
    res.end(`event: message\ndata: ${text}\n\n`);
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}

export async function startEchoUpstream(options: { sse?: boolean } = {}): Promise<EchoUpstream> {
  const sessions = new Set<string>();
  const state = { calls: 0 };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const sid = req.headers['mcp-session-id'];
    const session = typeof sid === 'string' ? sid : undefined;
    if (req.method === 'DELETE') {
      const known = session !== undefined && sessions.delete(session);
      res.writeHead(known ? 200 : 404).end();
      return;
    }
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const message = JSON.parse((await readBody(req)).toString('utf8')) as { id?: string | number; method?: string; params?: { arguments?: { tag?: string } } };
    if (message.id === undefined) return void res.writeHead(202).end();
    const reply = (result: unknown, headers: Record<string, string> = {}): void => send(res, 200, { jsonrpc: '2.0', id: message.id, result }, headers, options.sse);
    if (message.method === 'initialize') {
      const id = randomUUID();
      sessions.add(id);
      return reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'echo-upstream', version: '1' } }, { 'mcp-session-id': id });
    }
    if (session === undefined || !sessions.has(session)) return send(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    if (message.method === 'tools/list') return reply({ tools: [TOOL] });
    if (message.method === 'tools/call') {
      state.calls++;
      return reply({ content: [{ type: 'text', text: JSON.stringify({ session, tag: message.params?.arguments?.tag ?? null }) }] });
    }
    send(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  };
  const listening = await listen((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return Object.assign(state, { ...listening, url: `${listening.origin}/mcp`, sessions });
}

/** The tool config that retrofits `whoami`: its JSON text becomes structuredContent. */
export const WHOAMI_TOOLS = {
  whoami: { outputSchema: { type: 'object', properties: { session: { type: 'string' }, tag: { type: 'string' } }, required: ['session', 'tag'] } },
};
