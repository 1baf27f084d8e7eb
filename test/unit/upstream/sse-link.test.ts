/**
 * The legacy SSE link against a real HTTP server: one bad event never ends the stream — a handler that throws
 * is logged and the event reported dropped (`failed`), an event nested too deeply is refused before anything
 * recurses (`depth`), each with the id its ends show — and the events after them still arrive.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import type { LinkDropped } from '../../../src/upstream/link.js';
import { SseLink } from '../../../src/upstream/sse-link.js';
import { listen } from '../../helpers/listen.js';
import { captureLogger } from '../../helpers/stdio-gateway.js';

describe('SseLink', () => {
  it('survives an event its handler throws on, and refuses one nested too deeply; the next event arrives', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const up = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages\n\n');
      res.write('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"boom":true}}\n\n');
      res.write(`event: message\ndata: {"jsonrpc":"2.0","id":2,"result":{"x":${deep}}}\n\n`);
      res.write('event: message\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n');
    });
    const logs: Record<string, unknown>[] = [];
    const link = new SseLink({ upstream: 'up', url: new URL(`${up.origin}/sse`), clientHeaders: {}, headers: () => ({}), dropAuthorization: () => false, timeoutMs: 5_000, maxEventBytes: 1 << 20, log: captureLogger(logs) });
    onTestFinished(() => link.close());
    const frames: string[] = [];
    const dropped: LinkDropped[] = [];
    let third!: () => void;
    const arrived = new Promise<void>((resolve) => (third = resolve));
    link.onframe = (frame) => {
      if (frame.data.includes('boom')) throw new Error('handler broke');
      frames.push(frame.data.toString());
      third();
    };
    link.ondropped = (d) => dropped.push(d);
    await arrived;
    expect(frames).toEqual(['{"jsonrpc":"2.0","id":3,"result":{}}']);
    expect(dropped).toMatchObject([{ reason: 'failed', id: 1 }, { reason: 'depth', id: 2 }]);
    expect(logs.find((l) => l.msg === 'upstream event could not be handled; dropped')).toMatchObject({ level: 50, err: { message: 'handler broke' } });
    expect(link.alive).toBe(true);
  });

  it('refuses an endpoint on another origin: the stream ends with a protocol error and nothing is posted there', async () => {
    // Regression: the link posted each message — with the upstream's configured credential — wherever the
    // upstream's endpoint event pointed.
    const victim: string[] = [];
    const other = await listen((req, res) => {
      victim.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.end();
    });
    const up = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: endpoint\ndata: ${other.origin.replace('127.0.0.1', 'localhost')}/internal/admin\n\n`);
    });
    const logs: Record<string, unknown>[] = [];
    const link = new SseLink({ upstream: 'up', url: new URL(`${up.origin}/sse`), clientHeaders: {}, headers: () => ({ authorization: 'Bearer UPSTREAM-SECRET' }), dropAuthorization: () => false, timeoutMs: 5_000, maxEventBytes: 1 << 20, log: captureLogger(logs) });
    onTestFinished(() => link.close());
    const closed = new Promise<{ kind: string; reason: string }>((resolve) => (link.onclose = resolve));
    expect(await closed).toMatchObject({ kind: 'protocol', reason: expect.stringContaining('another origin') });
    const sent = await link.send('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(sent.ok).toBe(false);
    expect(victim).toEqual([]);
    expect(logs.find((l) => l.msg === 'upstream announced an endpoint on another origin; its stream is closed')).toBeDefined();
  });

  it('keeps the first endpoint when the upstream announces a second', async () => {
    const posts: string[] = [];
    const up = await listen((req, res) => {
      if (req.method === 'POST') {
        posts.push(req.url ?? '');
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /first\n\nevent: endpoint\ndata: /second\n\n');
    });
    const logs: Record<string, unknown>[] = [];
    const link = new SseLink({ upstream: 'up', url: new URL(`${up.origin}/sse`), clientHeaders: {}, headers: () => ({}), dropAuthorization: () => false, timeoutMs: 5_000, maxEventBytes: 1 << 20, log: captureLogger(logs) });
    onTestFinished(() => link.close());
    await link.ready;
    await expect.poll(() => logs.some((l) => l.msg === 'upstream announced a second endpoint; the first is kept')).toBe(true);
    expect((await link.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')).ok).toBe(true);
    expect(posts).toEqual(['/first']);
  });
});
