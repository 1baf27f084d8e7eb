/**
 * The Streamable HTTP fault upstream (for `url:`): a real node:http server on port 0 with MCP sessions of
 * its own (Mcp-Session-Id, 404 once forgotten, DELETE, a GET stream), answering each POST as JSON or as an
 * SSE stream as the request's directive says, and committing the directive's fault on the way (./brain.ts),
 * on the POST's answer or, for an endless message on the session's stream, on its GET stream. "Killed"
 * means what a crashed and restarted server looks like to the gateway: every open exchange of the session
 * is reset and the session is forgotten.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endlessOn, stepsFor } from './brain.js';
import { directiveOf, recordId } from './directive.js';
import { readBody, SseFramer, writeWithPressure } from './framing.js';
import { Cancellations, runSteps, type Recorder, type Sink, type Step } from './steps.js';

type Message = Record<string, unknown>;

export interface FaultHttpUpstream {
  readonly url: string;
  /** Sessions the upstream holds (its own view). */
  readonly sessions: () => number;
  close(): Promise<void>;
}

interface UpstreamSession {
  readonly open: Set<ServerResponse>;
  /** Its GET streams (server → client), newest last. */
  readonly streams: ServerResponse[];
  readonly cancellations: Cancellations;
}

function jsonError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

/** A sink over one response: SSE events or a JSON body (the 2026-07-28 upstream's too). */
export function responseSink(res: ServerResponse, sse: SseFramer | undefined, kill: () => void): Sink {
  return {
    frame: (json) => (sse ? sse.frame(json) : json),
    opening: sse ? sse.opening : Buffer.alloc(0),
    closing: sse ? sse.closing : Buffer.alloc(0),
    write: (bytes) => writeWithPressure(res, bytes),
    flush: () => res.flushHeaders(),
    reset: () => void res.socket?.destroy(),
    kill,
    get gone() {
      return res.destroyed || res.socket === null || res.socket.destroyed;
    },
  };
}

export async function startHttpUpstream(recorder: Recorder): Promise<FaultHttpUpstream> {
  const sessions = new Map<string, UpstreamSession>();

  function kill(id: string): void {
    const session = sessions.get(id);
    sessions.delete(id);
    for (const res of session?.open ?? []) res.socket?.destroy();
  }

  async function post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse((await readBody(req)).toString('utf8'));
    } catch {
      return jsonError(res, 400, 'parse error');
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Message[];
    const requests = messages.filter((m) => m.method !== undefined && m.id !== undefined);
    let sessionId = req.headers['mcp-session-id'] as string | undefined;
    if (requests.some((m) => m.method === 'initialize')) {
      sessionId = randomUUID();
      sessions.set(sessionId, { open: new Set(), streams: [], cancellations: new Cancellations() });
    }
    const session = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (!session || sessionId === undefined) return jsonError(res, sessionId === undefined ? 400 : 404, sessionId === undefined ? 'Mcp-Session-Id required' : 'Session not found');
    for (const m of messages) session.cancellations.observe(m);
    if (requests.length === 0) return void res.writeHead(202).end();

    const first = directiveOf(requests[0]!);
    const sse = Array.isArray(parsed) || first?.mode === 'sse' ? new SseFramer(first?.framing) : undefined;
    session.open.add(res);
    res.once('close', () => session.open.delete(res));
    res.setHeader('mcp-session-id', sessionId);
    res.setHeader('content-type', sse ? 'text/event-stream' : 'application/json');
    if (sse) res.setHeader('cache-control', 'no-cache');
    const sink = responseSink(res, sse, () => kill(sessionId));
    let preamble = sse?.preamble();
    for (const request of requests) {
      const fault = directiveOf(request)?.fault;
      // The answer waits until the endless message is over: the session lasts as long as it does.
      if (fault?.kind === 'endless' && fault.where === 'stream') await onStream(session, endlessOn(request, fault));
      const written = recorder.entry(directiveOf(request)?.tag ?? '', recordId(request));
      if (preamble && preamble.length > 0) {
        written.bytes.push(preamble);
        await sink.write(preamble);
        preamble = undefined;
      }
      await runSteps(stepsFor(request), sink, written, session.cancellations.of(request.id));
      session.cancellations.done(request.id);
      if (sink.gone) return;
    }
    res.end();
  }

  /** Run `step` on the session's newest GET stream, if it has one. */
  async function onStream(session: UpstreamSession, step: Step): Promise<void> {
    const res = session.streams.at(-1);
    if (!res) return;
    const sink = responseSink(res, new SseFramer(), () => res.socket?.destroy());
    await runSteps([step], sink, { bytes: [], messages: [], answers: 0, complete: false });
  }

  /** GET: the session's own stream (nothing on it but what a fault puts there). */
  function get(req: IncomingMessage, res: ServerResponse): void {
    const id = req.headers['mcp-session-id'] as string | undefined;
    const session = id === undefined ? undefined : sessions.get(id);
    if (!session) return jsonError(res, id === undefined ? 400 : 404, 'Session not found');
    session.open.add(res);
    session.streams.push(res);
    res.once('close', () => {
      session.open.delete(res);
      session.streams.splice(session.streams.indexOf(res), 1);
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': id! });
    res.flushHeaders();
  }

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/mcp') return jsonError(res, 404, 'not found');
    if (req.method === 'GET') return get(req, res);
    if (req.method === 'POST') {
      post(req, res).catch(() => res.socket?.destroy());
      return;
    }
    if (req.method === 'DELETE') {
      const id = req.headers['mcp-session-id'] as string | undefined;
      if (id === undefined || !sessions.has(id)) return jsonError(res, 404, 'Session not found');
      kill(id);
      return void res.writeHead(200).end();
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions: () => sessions.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
