/**
 * Regression: in share mode a session whose client stopped reading paused the one child for every session (its
 * backpressure was the child's): a client that opened its GET stream and never read it left every other
 * session's calls hanging until they timed out, for as long as it kept the connection. Now that session's
 * messages are held for it, in order, up to limits.maxResultBytes, the child read on for the others; past the
 * bound that session alone is ended (logged at warn, counted in slow_clients_total).
 */
import { connect, type Socket } from 'node:net';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectV1, startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { openSession, post, sessionHeaders } from '../hostile/harness.js';

const MAX_RESULT_BYTES = 1024 * 1024;
// `flood`: 24 log messages of 512 KiB (12 MiB, past what the sockets of a client that reads nothing take), for every
// session, then the answer; anything else: answered at once.
const child = rawChild(`(m, out) => {
  if (m.params?.name === 'flood') {
    for (let i = 0; i < 24; i++) out({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'L'.repeat(512 * 1024) } });
  }
  out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params?.name ?? '' }] } });
}`);

type Counts = Record<string, number>;
const before = process.env.MCP_RETROFIT_DEBUG;

afterEach(() => {
  if (before === undefined) delete process.env.MCP_RETROFIT_DEBUG;
  else process.env.MCP_RETROFIT_DEBUG = before;
});

/** A GET stream opened on a raw socket that reads nothing once the response's head came. */
function stalledGet(url: string, session: string): Promise<Socket> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(`GET ${pathname} HTTP/1.1\r\nhost: ${hostname}:${port}\r\naccept: text/event-stream\r\nmcp-session-id: ${session}\r\nmcp-protocol-version: 2025-06-18\r\n\r\n`);
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('data', (head) => {
      socket.pause();
      expect(head.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
      resolve(socket);
    });
  });
}

describe('regression: a share-mode client that stops reading', () => {
  it('does not hold the child back for the other sessions; its own session is ended past limits.maxResultBytes', async () => {
    process.env.MCP_RETROFIT_DEBUG = '1';
    const gateway = await startStdioGateway({ args: rawArgs(child), maxResultBytes: MAX_RESULT_BYTES, upstream: { share: true, timeoutMs: 10_000 }, stdio: { killTimeoutMs: 1_000 } });
    const debug = new URL('/debug/retrofit', gateway.url).href;
    const counts = async (): Promise<Counts> => ((await (await fetch(debug)).json()) as { upstreams: Record<string, Counts> }).upstreams.fixture!;

    const a = await openSession(gateway.url);
    const stalled = await stalledGet(gateway.url, a);
    const b = await connectV1(gateway.url, 'reads-everything');
    const logged: unknown[] = [];
    b.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n));

    // The old gateway paused the child once A's stream backed up: this call's answer never came (-32001).
    const flood = await b.callTool({ name: 'flood', arguments: {} });
    expect(flood.content).toEqual([{ type: 'text', text: 'flood' }]);
    expect(logged).toHaveLength(24);
    expect((await b.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'echo' }]);

    const cut = await gateway.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith("share mode: a backed-up client's session is ended"));
    expect(cut).toMatchObject({ level: 40, session: a, maxHeldBytes: MAX_RESULT_BYTES });
    expect((await gateway.metrics.slowClients.get()).values).toEqual([{ value: 1, labels: { upstream: 'fixture' } }]);
    // A's session is gone (its client initializes again); B's and the child serve on.
    expect((await post(gateway.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, sessionHeaders(a))).status).toBe(404);
    expect(await counts()).toMatchObject({ sessions: 1, children: 1, pending: 0 });
    expect(gateway.logs.filter((l) => l.msg === 'upstream did not answer within timeoutMs; request cancelled')).toEqual([]);

    // Nothing is left behind once both clients are gone.
    stalled.destroy();
    await (b.transport as StreamableHTTPClientTransport).terminateSession();
    await vi.waitFor(async () => expect(await counts()).toMatchObject({ sessions: 0, pending: 0, streams: 0, closing: 0, children: 0 }), { timeout: 5_000 });
  });
});
