/**
 * The legacy HTTP+SSE fault upstream (2024-11-05 transport, for `sse:`): GET /sse opens a session whose first
 * event names `/message?sessionId=…`; POSTs there get 202 and every answer goes on the GET stream, framed
 * `event: message` as the SDK's server does. Faults run on that stream (./brain.ts): "reset" and "killed"
 * both end it, since it is the session; "reset early" resets the POST itself before any answer.
 * Messages of concurrent requests never interleave inside an event: each session writes through one queue.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stepsFor } from './brain.js';
import { directiveOf, recordId } from './directive.js';
import { readBody, SseFramer, writeWithPressure } from './framing.js';
import { Cancellations, runSteps, type Recorder, type Sink } from './steps.js';

type Message = Record<string, unknown>;

export interface FaultLegacyUpstream {
  /** The SSE URL (what `sse:` names). */
  readonly url: string;
  readonly sessions: () => number;
  close(): Promise<void>;
}

interface LegacySession {
  readonly res: ServerResponse;
  readonly sink: Sink;
  readonly cancellations: Cancellations;
  /** The tail of the session's write queue. */
  queue: Promise<void>;
}

export async function startLegacyUpstream(recorder: Recorder): Promise<FaultLegacyUpstream> {
  const sessions = new Map<string, LegacySession>();
  const framer = new SseFramer();

  function open(res: ServerResponse): void {
    const id = randomUUID();
    const end = (): void => {
      sessions.delete(id);
      res.socket?.destroy();
    };
    const sink: Sink = {
      frame: (json) => framer.frame(json),
      opening: framer.opening,
      closing: framer.closing,
      write: (bytes) => writeWithPressure(res, bytes),
      flush: () => res.flushHeaders(),
      reset: end,
      kill: end,
      get gone() {
        return res.destroyed || res.socket === null || res.socket.destroyed;
      },
    };
    sessions.set(id, { res, sink, cancellations: new Cancellations(), queue: Promise.resolve() });
    res.once('close', () => sessions.delete(id));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(`event: endpoint\ndata: /message?sessionId=${id}\n\n`);
  }

  async function message(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const session = sessions.get(url.searchParams.get('sessionId') ?? '');
    if (!session) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Session not found');
    let parsed: unknown;
    try {
      parsed = JSON.parse((await readBody(req)).toString('utf8'));
    } catch {
      return void res.writeHead(400, { 'content-type': 'text/plain' }).end('Invalid message');
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Message[];
    if (messages.some((m) => directiveOf(m)?.fault?.kind === 'reset-early')) return void req.socket.destroy();
    res.writeHead(202).end('Accepted');
    for (const m of messages) {
      if (session.cancellations.observe(m)) continue;
      const steps = stepsFor(m);
      if (steps.length === 0) continue;
      const written = recorder.entry(directiveOf(m)?.tag ?? '', recordId(m));
      const { cancellations } = session;
      session.queue = session.queue.then(() => runSteps(steps, session.sink, written, cancellations.of(m.id))).then(() => cancellations.done(m.id));
    }
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    if (req.method === 'GET' && url.pathname === '/sse') return open(res);
    if (req.method === 'POST' && url.pathname === '/message') {
      message(req, res, url).catch(() => req.socket.destroy());
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    sessions: () => sessions.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
