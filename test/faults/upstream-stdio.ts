/**
 * The stdio fault upstream, suite side: each stdio child the gateway spawns (./stdio-relay.mjs) connects
 * here, and its stdin lines are answered by the fault program (./brain.ts) as NDJSON on its stdout. Killing
 * the upstream ends the connection, and the child exits 3 at once. ("stall-stdin" is the child's own: it
 * stops reading its stdin.)
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { stepsFor } from './brain.js';
import { directiveOf, recordId } from './directive.js';
import { ndjsonLine, writeWithPressure } from './framing.js';
import { Cancellations, runSteps, type Recorder, type Sink } from './steps.js';

/** The child script the gateway's config runs (with the port as its argument). */
export const RELAY_SCRIPT = fileURLToPath(new URL('./stdio-relay.mjs', import.meta.url));

/** Longest line the suite reads from the gateway (its requests are bounded by limits.maxRequestBytes). */
const MAX_LINE = 8 * 1024 * 1024;

export interface FaultStdioUpstream {
  /** The argument the relay child needs. */
  readonly port: number;
  /** Children connected right now. */
  readonly children: () => number;
  close(): Promise<void>;
}

function serve(socket: Socket, recorder: Recorder): void {
  let ended = false;
  let queue = Promise.resolve();
  const cancellations = new Cancellations();
  const sink: Sink = {
    frame: ndjsonLine,
    opening: Buffer.alloc(0),
    closing: Buffer.from('\n'),
    write: (bytes) => writeWithPressure(socket, bytes),
    flush: () => {},
    reset: () => sink.kill(),
    kill: () => {
      ended = true;
      socket.end();
    },
    get gone() {
      return ended || socket.destroyed;
    },
  };
  const onMessage = (line: string): void => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (cancellations.observe(message)) return;
    const steps = stepsFor(message);
    if (steps.length === 0) return;
    const written = recorder.entry(directiveOf(message)?.tag ?? '', recordId(message));
    queue = queue.then(() => runSteps(steps, sink, written, cancellations.of(message.id))).then(() => cancellations.done(message.id));
  };
  let parts: Buffer[] = [];
  let size = 0;
  socket.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      parts.push(chunk.subarray(start, nl));
      const line = Buffer.concat(parts).toString('utf8');
      parts = [];
      size = 0;
      start = nl + 1;
      onMessage(line);
    }
    if (start < chunk.length) {
      parts.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > MAX_LINE) socket.destroy(new Error('line too long'));
    }
  });
  // The child's stdin ended (the gateway closed it): end ours, so it exits 0.
  socket.once('end', () => {
    ended = true;
    socket.end();
  });
  socket.on('error', () => {});
}

export async function startStdioUpstream(recorder: Recorder): Promise<FaultStdioUpstream> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serve(socket, recorder);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    children: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
