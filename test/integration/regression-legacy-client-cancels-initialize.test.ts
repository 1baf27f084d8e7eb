/**
 * Regression: a legacy HTTP+SSE client's POST went to the upstream as the client sent it, so its
 * `notifications/cancelled` for a pending `initialize` reached the server — which the spec forbids (initialize
 * is never cancelled), and which the gateway already withheld on every other transport. Now the legacy edge
 * withholds it too (202, logged): alone, nothing is sent; in a batch, the rest of the batch goes.
 */
import { request, type IncomingMessage } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { rawLegacyUpstream } from '../helpers/raw-legacy.js';

type Message = { jsonrpc: '2.0'; id?: number; method?: string; params?: Record<string, unknown>; result?: unknown };

const INITIALIZE: Message = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } } };
const CANCEL: Message = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0, reason: 'impatient' } };
const PROGRESS: Message = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };

/** A legacy upstream that records every message POSTed to it and answers initialize only when told. */
async function legacyUpstream(): Promise<{ url: string; got: Message[]; answerInitialize: () => void }> {
  const got: Message[] = [];
  let initialize: Message | undefined;
  const up = await rawLegacyUpstream((body, res) => {
    res.writeHead(202).end();
    for (const m of (Array.isArray(body) ? body : [body]) as Message[]) {
      got.push(m);
      if (m.method === 'initialize') initialize = m;
    }
  });
  return { url: up.url, got, answerInitialize: () => up.initialized(initialize?.id) };
}

/** A legacy client's event stream on the gateway: its POST endpoint, and the messages that arrive on it. */
async function openStream(url: string): Promise<{ endpoint: string; messages: Message[]; next: (test: (m: Message) => boolean) => Promise<Message> }> {
  const messages: Message[] = [];
  const waiters: (() => void)[] = [];
  let endpoint: string | undefined;
  const res = await new Promise<IncomingMessage>((resolve, reject) => request(url, { headers: { accept: 'text/event-stream' } }, resolve).on('error', reject).end());
  onTestFinished(() => void res.destroy());
  let buffered = '';
  res.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data === undefined) continue;
      if (/^event: endpoint$/m.test(block)) endpoint = data;
      else messages.push(JSON.parse(data) as Message);
      for (const wake of waiters.splice(0)) wake();
    }
  });
  const until = async <T>(take: () => T | undefined): Promise<T> => {
    for (let v = take(); ; v = take()) {
      if (v !== undefined) return v;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { endpoint: await until(() => endpoint), messages, next: (test) => until(() => messages.find(test)) };
}

const postTo = async (url: string, body: unknown): Promise<number> => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;

describe('regression: a legacy client cancels its pending initialize', () => {
  it.each([
    ['alone', [CANCEL], []],
    ['in a batch', [CANCEL, PROGRESS], ['notifications/roots/list_changed']],
  ] as const)('%s: the cancellation never reaches the upstream; the initialize is still answered', async (_label, body, forwarded) => {
    const up = await legacyUpstream();
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', up.url, { timeoutMs: 10_000 })]));
    const stream = await openStream(gw.url('/legacy/mcp'));
    const endpoint = new URL(stream.endpoint, gw.url('/')).toString();

    expect(await postTo(endpoint, INITIALIZE)).toBe(202);
    expect(await postTo(endpoint, body.length === 1 ? body[0] : body)).toBe(202);
    // The upstream has what the gateway sent by the time it answers: the initialize, and the rest of the batch.
    const sentinel = { jsonrpc: '2.0', method: 'notifications/message', params: {} };
    expect(await postTo(endpoint, sentinel)).toBe(202);
    await expect.poll(() => up.got.some((m) => m.method === 'notifications/message')).toBe(true);
    expect(up.got.map((m) => m.method)).toEqual(['initialize', ...forwarded, 'notifications/message']);

    up.answerInitialize();
    expect((await stream.next((m) => m.id === 0)).result).toMatchObject({ serverInfo: { name: 'legacy' } });
    expect(gw.logs.some((l) => l.msg === 'a client cancelled its initialize request; not forwarded (initialize is never cancelled)')).toBe(true);
  });
});
