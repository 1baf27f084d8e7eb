/**
 * Run a raw node http server on port 0 for a test; it is closed (connections included) when the test ends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { onTestFinished } from 'vitest';

export interface Listening {
  readonly server: Server;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
}

export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Listening> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return { server, origin: `http://127.0.0.1:${address.port}` };
}

/** Read a request body whole. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/**
 * A local port nothing listens on: bind port 0, read it back, close. For upstreams that can only be told a port
 * (server-everything reads PORT) and for "nothing listening here" tests; never a port the gateway binds.
 */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
