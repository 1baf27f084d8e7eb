/**
 * A raw Streamable HTTP upstream of session revisions (2025-11-25, session `s1`) whose tools/call answer stream
 * sends `prelude` (an event id, typically) and then ends — reset (`end: 'reset'`, the default) or cleanly — before
 * the answer. A GET with `Last-Event-ID: s1-0` replays the call's answer (text "42") as event `s1-1` (`resumes:
 * 'replay'`, the default), or is refused (`'refuse'`: 405, as any GET without Last-Event-ID is), or gets a stream
 * that ends with nothing in it (`'end'`). `resumed` records the Last-Event-ID of each GET that was not refused.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, readBody } from './listen.js';

interface Message {
  readonly id?: number;
  readonly method?: string;
}

export interface DroppingUpstream {
  /** `origin + /mcp` */
  readonly url: string;
  readonly resumed: string[];
}

export async function startDroppingUpstream(prelude: string, options: { end?: 'reset' | 'clean'; resumes?: 'replay' | 'refuse' | 'end' } = {}): Promise<DroppingUpstream> {
  const resumed: string[] = [];
  let call: Message | undefined;
  const json = (res: ServerResponse, body: unknown): void => void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' }).end(JSON.stringify(body));
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'GET') {
      const last = req.headers['last-event-id'];
      if (typeof last !== 'string' || options.resumes === 'refuse') return void res.writeHead(405).end();
      resumed.push(last);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (options.resumes === 'end') return void res.end();
      if (last === 's1-0' && call) res.write(`id: s1-1\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: '42' }] } })}\n\n`);
      return;
    }
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    const m = JSON.parse((await readBody(req)).toString('utf8')) as Message;
    if (m.method !== 'initialize' && req.headers['mcp-session-id'] !== 's1') {
      return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }));
    }
    if (m.method === 'initialize') return json(res, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'dropping', version: '1' } } });
    if (m.method === 'tools/list') return json(res, { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'num', inputSchema: { type: 'object' } }] } });
    if (m.method !== 'tools/call') return void res.writeHead(202).end();
    call = m;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' });
    res.write(prelude, () => (options.end === 'clean' ? res.end() : res.socket?.destroy()));
  };
  const up = await listen((req, res) => void handle(req, res));
  return { url: `${up.origin}/mcp`, resumed };
}
