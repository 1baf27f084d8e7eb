/**
 * The 2026-07-28-only fault upstream (for `url:`): a real node:http server on port 0 that serves only the
 * session-less revision, as an SDK v2 server built with `legacy: 'reject'` does. It refuses `initialize`
 * (400, -32022, as test/helpers/raw-modern.ts does), answers `server/discover`, holds `subscriptions/listen`
 * open, answers GET and DELETE 405, and checks what the revision's transport requires of every request (the
 * `MCP-Protocol-Version` header equal to the `_meta` revision, `Mcp-Method` and `Mcp-Name` equal to the body:
 * else 400, -32020), so a gateway that speaks the revision wrongly for its older clients fails their calls.
 * Each request is answered as JSON or an SSE stream, as its directive says, committing the directive's fault
 * on the way (./brain.ts, in 2026-07-28's words). It has no sessions: "killed" means what a crashed and
 * restarted server looks like to the gateway — every open exchange of the tag (the client's session) is reset.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stepsFor } from './brain.js';
import { directiveOf, recordId } from './directive.js';
import { readBody, SseFramer } from './framing.js';
import { runSteps, type Recorder } from './steps.js';
import { responseSink } from './upstream-http.js';

type Message = Record<string, unknown>;

export const MODERN_REVISION = '2026-07-28';
const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

export interface FaultModernUpstream {
  readonly url: string;
  /**
   * Resolves once no exchange of `tag` (a session) is open here, or after `ms` with how many still are: a
   * client's closed stream (or its ended session) must close the upstream's exchanges too — on 2026-07-28
   * that is what cancels a request.
   */
  settled(tag: string, ms: number): Promise<number>;
  close(): Promise<void>;
}

function jsonAnswer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** What the revision's transport requires of a request and its headers (undefined: fine). */
function headerProblem(req: IncomingMessage, m: Message): string | undefined {
  const meta = (m.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const header = req.headers['mcp-protocol-version'];
  if (header !== MODERN_REVISION) return `MCP-Protocol-Version ${String(header)}, not ${MODERN_REVISION}`;
  if (meta?.[META_PROTOCOL_VERSION] !== header) return `_meta names ${String(meta?.[META_PROTOCOL_VERSION])}, the header ${header}`;
  if (req.headers['mcp-method'] !== m.method) return `Mcp-Method ${String(req.headers['mcp-method'])} for ${String(m.method)}`;
  const name = (m.params as { name?: unknown } | undefined)?.name;
  if ((m.method === 'tools/call' || m.method === 'prompts/get') && req.headers['mcp-name'] !== name) return `Mcp-Name ${String(req.headers['mcp-name'])} for ${String(name)}`;
  return undefined;
}

export async function startModernUpstream(recorder: Recorder): Promise<FaultModernUpstream> {
  /** Open exchanges by the tag of the session they serve ('' for those without one: listen streams). */
  const open = new Map<string, Set<ServerResponse>>();
  /** Who waits for a tag's exchanges to be closed. */
  const waiters = new Map<string, Set<() => void>>();
  const hold = (tag: string, res: ServerResponse): void => {
    const set = open.get(tag) ?? open.set(tag, new Set()).get(tag)!;
    set.add(res);
    res.once('close', () => {
      set.delete(res);
      if (set.size > 0 || open.get(tag) !== set) return;
      open.delete(tag);
      for (const wake of waiters.get(tag) ?? []) wake();
    });
  };
  const settled = (tag: string, ms: number): Promise<number> => {
    if (!open.has(tag)) return Promise.resolve(0);
    return new Promise((resolve) => {
      const set = waiters.get(tag) ?? waiters.set(tag, new Set()).get(tag)!;
      const done = (): void => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) waiters.delete(tag);
        resolve(open.get(tag)?.size ?? 0);
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  };
  const kill = (tag: string): void => {
    for (const res of open.get(tag) ?? []) res.socket?.destroy();
  };

  async function post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse((await readBody(req)).toString('utf8'));
    } catch {
      return jsonAnswer(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    // The revision has no batches.
    if (Array.isArray(parsed) || typeof parsed !== 'object' || parsed === null) return jsonAnswer(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
    const m = parsed as Message;
    if (m.method === 'initialize') return jsonAnswer(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN_REVISION] } } });
    // Notifications (a gateway's notifications/cancelled: closing the stream is what cancels) and responses.
    if (m.method === undefined || m.id === undefined) return void res.writeHead(202).end();
    const problem = headerProblem(req, m);
    if (problem !== undefined) return jsonAnswer(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32020, message: `Header mismatch: ${problem}` } });
    if (m.method === 'subscriptions/listen') {
      hold('', res);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': m.id } } };
      return void res.write(new SseFramer().frame(Buffer.from(JSON.stringify(ack))));
    }
    const d = directiveOf(m);
    const tag = d?.tag ?? '';
    const sse = d?.mode === 'sse' ? new SseFramer(d.framing) : undefined;
    hold(tag, res);
    res.setHeader('content-type', sse ? 'text/event-stream' : 'application/json');
    if (sse) res.setHeader('cache-control', 'no-cache');
    const sink = responseSink(res, sse, () => kill(tag));
    const written = recorder.entry(tag, recordId(m));
    const preamble = sse?.preamble();
    if (preamble && preamble.length > 0) {
      written.bytes.push(preamble);
      await sink.write(preamble);
    }
    // A client that closed the stream cancelled the request: the sink is gone, nothing more is written.
    await runSteps(stepsFor(m, 'modern'), sink, written);
    if (!sink.gone) res.end();
  }

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/mcp') return jsonAnswer(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'not found' } });
    if (req.method === 'POST') {
      post(req, res).catch(() => res.socket?.destroy());
      return;
    }
    // No sessions, no server stream: GET and DELETE are not part of the revision.
    res.writeHead(405, { allow: 'POST' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    settled,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
