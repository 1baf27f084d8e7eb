/**
 * Regression: an SSE answer the gateway would not rewrite had no size bound — the relay split it into events
 * without `maxEventBytes` — so one 32 MiB event was held whole (no byte reached the client until it ended) and
 * an event that never ended grew memory without limit. Now a block is held only when it may be rewritten (an
 * answer the session awaits), and then bounded by maxResultBytes; every other block is forwarded as its bytes
 * arrive, whatever its size, and a notification's first bytes tell it apart even while a call is awaited.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_LIMITS, type ToolConfig } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

const LIMIT = 64 * 1024;
const MIB = 1024 * 1024;
const TOOLS: Record<string, ToolConfig> = { typed: { outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } };

/** Write and wait for the socket to take it. */
function put(res: ServerResponse, bytes: string | Buffer): Promise<void> {
  return new Promise((resolve) => (res.write(bytes) ? resolve() : res.once('drain', () => resolve())));
}

/** POST `body` through the gateway; resolves with the response as soon as its headers arrive. */
function open(url: string, body: object): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, resolve);
    req.on('error', reject);
    req.end(JSON.stringify(body));
    onTestFinished(() => void req.destroy());
  });
}

/** Resolves once `res` delivered at least `bytes` bytes (counted as they come). */
function received(res: IncomingMessage, bytes: number, seen: { n: number }): Promise<void> {
  return new Promise((resolve) => {
    if (seen.n >= bytes) return resolve();
    const check = (): void => {
      if (seen.n < bytes) return;
      res.off('data', check);
      resolve();
    };
    res.on('data', check);
  });
}

function counting(res: IncomingMessage): { n: number; text: () => string } {
  const parts: Buffer[] = [];
  const seen = { n: 0, text: () => Buffer.concat(parts).toString('utf8') };
  res.on('data', (chunk: Buffer) => {
    seen.n += chunk.length;
    parts.push(chunk);
  });
  return seen;
}

describe('regression: pass-through SSE events are never held whole', () => {
  it('an event nothing awaits reaches the client as it arrives, past maxResultBytes; one that never ends streams until the client leaves', async () => {
    let finish: (() => void) | undefined;
    const upstreamClosed = new Promise<void>((resolve) => (finish = resolve));
    const up = await listen((req, res) => {
      void readBody(req).then(async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // resources/read is never rewritten: nothing awaits its answer, so nothing of it is held.
        await put(res, 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x","text":"');
        res.on('close', () => finish?.());
        const chunk = Buffer.alloc(MIB, 0x78);
        // Never ends: only the client leaving stops it.
        while (!res.destroyed) await put(res, chunk);
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`, { tools: TOOLS })], { limits: { ...DEFAULT_LIMITS, maxResultBytes: LIMIT } }));
    const res = await open(gw.url('/remote/mcp'), { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'x' } });
    const seen = counting(res);
    // 8 MiB of one event that has not ended, 128 times the bound: it was forwarded, not held.
    await received(res, 8 * MIB, seen);
    expect(seen.text().startsWith('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x","text":"xxxx')).toBe(true);
    res.destroy();
    // The client leaving took the upstream exchange with it.
    await upstreamClosed;
  });

  it('while a call is awaited, a large notification still passes as it arrives; the answer over the bound becomes RESULT_TOO_LARGE, which ends the stream', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then(async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // A notification four times the bound: its head (a `method` up front) says it cannot change.
        await put(res, `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${'n'.repeat(4 * LIMIT)}"}}\n\n`);
        // The answer, over the bound, the id last as the SDKs write it: held, dropped, answered with an error.
        await put(res, `event: message\ndata: {"result":{"content":[{"type":"text","text":"${'r'.repeat(2 * LIMIT)}"}]},"jsonrpc":"2.0","id":7}\n\n`);
        await put(res, 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"after"}}\n\n');
        res.end();
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`, { tools: TOOLS })], { limits: { ...DEFAULT_LIMITS, maxResultBytes: LIMIT } }));
    const res = await open(gw.url('/remote/mcp'), { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'typed', arguments: {} } });
    expect(res.statusCode).toBe(200);
    const text = (await readBody(res)).toString('utf8');
    const messages = text
      .split('\n\n')
      .filter((b) => b.includes('data: '))
      .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)) as { method?: string; id?: number; error?: { data?: { code?: string } }; params?: { data?: string } });
    // The POST's stream owed one answer: once it is given, nothing more of the upstream's stream is read.
    expect(messages.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 7]);
    expect(messages[0]?.params?.data).toHaveLength(4 * LIMIT);
    expect(messages[1]?.error?.data?.code).toBe('RETROFIT_ERR_RESULT_TOO_LARGE');
  });
});
