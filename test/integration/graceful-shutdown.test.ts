import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { serve, type ServeHandle } from '../../src/cli/serve.js';
import { captureLogs } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';

async function configFile(url: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'retrofit-serve-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, `listen:\n  host: 127.0.0.1\n  port: 8080\nupstreams:\n  up:\n    url: ${url}\n`);
  return file;
}

/** An upstream that holds POSTs until released and keeps GET streams open. */
async function holdingUpstream() {
  const posts: ServerResponse[] = [];
  let postArrived!: () => void;
  const arrived = new Promise<void>((resolve) => (postArrived = resolve));
  const upstream = await listen((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      return;
    }
    req.resume();
    posts.push(res);
    postArrived();
  });
  return { upstream, posts, arrived };
}

async function start(url: string, graceMs: number): Promise<{ handle: ServeHandle; signals: EventEmitter; lines: ReturnType<typeof captureLogs>['lines'] }> {
  const signals = new EventEmitter();
  const { lines, stream } = captureLogs();
  const io = { stdout: new PassThrough(), stderr: new PassThrough() };
  const handle = await serve(['--config', await configFile(url), '--port', '0'], io, { signals, logDestination: stream, graceMs });
  if (typeof handle === 'number') throw new Error(`serve exited ${handle}`);
  onTestFinished(() => handle.shutdown('test end'));
  return { handle, signals, lines };
}

const post = (url: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

describe('graceful shutdown on SIGTERM', () => {
  it('closes streams at once, lets an in-flight request finish, then stops', async () => {
    const { upstream, posts, arrived } = await holdingUpstream();
    const { handle, signals, lines } = await start(`${upstream.origin}/mcp`, 10_000);
    expect(lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('mcp-retrofit listening on'))).toMatchObject({ address: handle.address });

    const stream = await fetch(`${handle.address}/up/mcp`, { headers: { accept: 'text/event-stream' } });
    const reader = stream.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe(': open\n\n');
    const inFlight = post(`${handle.address}/up/mcp`);
    await arrived;

    signals.emit('SIGTERM');
    // The long-lived stream is ended by the gateway without waiting for the grace period: cleanly (the client sees
    // the end of the stream, not a cut connection), and not logged as a client that went away.
    await expect(
      (async () => {
        for (let r = await reader.read(); !r.done; r = await reader.read());
      })(),
    ).resolves.toBeUndefined();
    const logged = lines.find((l) => l.msg === 'request' && l.method === 'GET');
    expect(logged).toMatchObject({ status: 200 });
    expect(logged).not.toHaveProperty('aborted');
    posts[0]!.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await handle.closed;
    await expect(fetch(`${handle.address}/healthz`)).rejects.toThrow();
    expect(lines.some((l) => l.msg === 'shut down')).toBe(true);
  });

  it('answers requests still in flight when the grace period ends with RETROFIT_ERR_SHUTTING_DOWN', async () => {
    const { upstream, arrived } = await holdingUpstream();
    const { handle, signals } = await start(`${upstream.origin}/mcp`, 50);
    // Settle into a value at once so a rejection is never unhandled while shutdown runs.
    const outcome = post(`${handle.address}/up/mcp`).then(
      async (r) => ({ status: r.status, body: await r.text() }),
      (err: unknown) => ({ status: 0, body: String(err) }),
    );
    await arrived;
    signals.emit('SIGINT');
    await handle.closed;
    const { status, body } = await outcome;
    expect(status).toBe(503);
    expect(JSON.parse(body)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'the gateway is shutting down', data: { code: 'RETROFIT_ERR_SHUTTING_DOWN' } } });
  });
});
