/**
 * The proxy's upstream exchange (src/upstream/exchange.ts) against a real node:http server: bodies arrive
 * whole and in order, backpressure holds the upstream, and cancelling — before the connection, while waiting
 * for headers, mid-body, or by leaving the iteration — aborts the upstream request.
 */
import { once } from 'node:events';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Cancel } from '../../../src/upstream/cancel.js';
import { exchange, HIGH_WATER } from '../../../src/upstream/exchange.js';
import { failureKind } from '../../../src/upstream/errors.js';
import { listen, readBody } from '../../helpers/listen.js';

const pools: Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.destroy()));
});

function poolFor(origin: string): Pool {
  const pool = new Pool(origin);
  pools.push(pool);
  return pool;
}

async function collect(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts);
}

describe('exchange', () => {
  it('sends method, headers and body; returns status, parsed headers and the whole body in order', async () => {
    const { origin } = await listen(async (req, res) => {
      const body = await readBody(req);
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': req.headers['x-test'] ?? '', 'set-cookie': ['a=1', 'b=2'] });
      for (let i = 0; i < 5; i++) res.write(`${i}:${body.toString()};`);
      res.end();
    });
    const answer = await exchange(poolFor(origin), { method: 'POST', path: '/', headers: { 'x-test': 'yes' }, body: Buffer.from('hi') });
    expect(answer.statusCode).toBe(201);
    expect(answer.headers['x-echo']).toBe('yes');
    expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect((await collect(answer.body)).toString()).toBe('0:hi;1:hi;2:hi;3:hi;4:hi;');
  });

  it('pauses the upstream while more than HIGH_WATER bytes wait unread, and delivers everything once read', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const total = 64;
    let blocked = false;
    const { origin } = await listen(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let i = 0; i < total; i++) {
        if (!res.write(chunk)) {
          blocked = true;
          await once(res, 'drain');
        }
      }
      res.end();
    });
    const answer = await exchange(poolFor(origin), { method: 'GET', path: '/' });
    // Nobody reads until the server has hit backpressure: the queue cannot grow without bound.
    await expect.poll(() => blocked, { timeout: 5_000 }).toBe(true);
    const body = await collect(answer.body);
    expect(body.length).toBe(chunk.length * total);
    expect(chunk.length * total).toBeGreaterThan(HIGH_WATER * 4);
  });

  it('cancel before the answer rejects with an abort the failure mapper recognises, and the upstream sees the close', async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    const { origin } = await listen((_req, res) => {
      res.on('close', closed);
      arrived();
    });
    const cancel = new Cancel();
    const pending = exchange(poolFor(origin), { method: 'POST', path: '/', body: Buffer.from('{}') }, cancel);
    await requestArrived;
    cancel.abort();
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failureKind(err)).toBe('aborted');
    await upstreamClosed;
  });

  it('a cancel that came first stops the request from being sent at all', async () => {
    let requests = 0;
    const { origin } = await listen((_req, res) => {
      requests++;
      res.end('late');
    });
    const cancel = new Cancel();
    cancel.abort();
    const err = await exchange(poolFor(origin), { method: 'GET', path: '/' }, cancel).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failureKind(err)).toBe('aborted');
    // A second, ordinary request on the same pool still works and is the only one the server saw.
    const answer = await exchange(poolFor(origin), { method: 'GET', path: '/' });
    expect((await collect(answer.body)).toString()).toBe('late');
    expect(requests).toBe(1);
  });

  it('cancel mid-body rejects the reader and closes the upstream response', async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const { origin } = await listen((_req, res) => {
      res.on('close', closed);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: 1\n\n');
    });
    const cancel = new Cancel();
    const answer = await exchange(poolFor(origin), { method: 'GET', path: '/' }, cancel);
    const reader = answer.body[Symbol.asyncIterator]();
    expect((await reader.next()).value?.toString()).toBe('event: message\ndata: 1\n\n');
    const next = reader.next();
    cancel.abort();
    await expect(next).rejects.toMatchObject({ code: 'UND_ERR_ABORTED' });
    await upstreamClosed;
  });

  it('leaving the iteration early aborts the upstream stream', async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const { origin } = await listen((_req, res) => {
      res.on('close', closed);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const answer = await exchange(poolFor(origin), { method: 'GET', path: '/' });
    for await (const chunk of answer.body) {
      expect(chunk.toString()).toBe('data: first\n\n');
      break;
    }
    await upstreamClosed;
  });

  it('an upstream that dies mid-body rejects the reader', async () => {
    const { origin } = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setImmediate(() => res.destroy());
    });
    const answer = await exchange(poolFor(origin), { method: 'GET', path: '/' });
    await expect(collect(answer.body)).rejects.toBeInstanceOf(Error);
  });

  it('connection refused rejects before any answer', async () => {
    const { origin, server } = await listen(() => {});
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const err = await exchange(poolFor(origin), { method: 'GET', path: '/' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failureKind(err)).toBe('unreachable');
  });

  it('a small answer already complete is taken whole at once; a streaming one is not', async () => {
    let finish: (() => void) | undefined;
    const { origin } = await listen(async (req, res) => {
      if (req.url === '/small') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '7' });
        res.end('{"a":1}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      finish = () => res.end();
    });
    const pool = poolFor(origin);
    const small = await exchange(pool, { method: 'GET', path: '/small' });
    expect(small.body.buffered).toBe(true);
    expect(Buffer.concat(small.body.takeComplete() ?? []).toString()).toBe('{"a":1}');
    const stream = await exchange(pool, { method: 'GET', path: '/stream' });
    expect(stream.body.takeComplete()).toBeUndefined();
    finish?.();
    expect((await collect(stream.body)).toString()).toBe('data: 1\n\n');
  });
});
