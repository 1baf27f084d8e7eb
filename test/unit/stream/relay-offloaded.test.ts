import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { createLogger } from '../../../src/log.js';
import type { PendingRequest, Rewriter, Rewritten } from '../../../src/pipeline/rewrite.js';
import { spliceResult } from '../../../src/offload/splice.js';
import { PendingRequests } from '../../../src/session/pending.js';
import { ResponseMatcher } from '../../../src/session/responses.js';
import { SessionFacts } from '../../../src/session/sessions.js';
import { readAndRewriteJson, relaySse } from '../../../src/stream/relay.js';
import { LegacyConnections, relayEvent } from '../../../src/upstream/sse-legacy.js';
import { SseSplitter } from '../../../src/stream/sse.js';
import { listen } from '../../helpers/listen.js';

/**
 * Results that went to a worker (Rewriter.rewriteLarge) come back as pre-serialised bytes, later: the relay
 * splices them in, and what follows on the same stream waits for them. The stub rewriter answers "big" calls
 * on the next turn of the event loop (as a worker would), everything else synchronously.
 */
const log = createLogger({ level: 'silent' });

function rewriter(): Rewriter {
  const mark = (message: JsonObject, by: string): JsonObject => ({ ...message, result: { ...(message.result as JsonObject), by } });
  return {
    needsRewrite: () => true,
    policyOf: () => undefined,
    rewrite: (_request, message) => mark(message, 'main'),
    rewriteLarge(request, message) {
      if (request.tool !== 'big') return undefined;
      const bytes = Buffer.from(JSON.stringify({ ...(message.result as JsonObject), by: 'worker' }));
      return new Promise<Rewritten>((resolve) => setImmediate(() => resolve({ message, serialized: spliceResult(message, bytes) })));
    },
  };
}

const call = (tool: string): PendingRequest => ({ upstream: 'u', method: 'tools/call', tool, revision: '2025-11-25' });

function matcher(): ResponseMatcher {
  const m = new ResponseMatcher('u', undefined, { pending: new PendingRequests(), facts: new SessionFacts(), rewriter: rewriter() }, log);
  m.expect(1, { kind: 'rewrite', request: call('big'), shared: false });
  m.expect(2, { kind: 'rewrite', request: call('small'), shared: false });
  return m;
}

async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield Buffer.from(p);
}

describe('relaying results retrofitted on a worker', () => {
  it('SSE: the worker bytes are spliced into the event, and later events wait for it', async () => {
    const m = matcher();
    const body = chunks(
      'id: e1\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"n":1}}\n\n',
      'data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\ndata: {"jsonrpc":"2.0","id":2,"result":{"n":2}}\n\n',
    );
    const server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void relaySse(body, res, m, log).then(() => res.end());
    });
    const text = await (await fetch(server.origin)).text();
    expect(text).toBe(
      [
        'event: message\nid: e1\ndata: {"jsonrpc":"2.0","id":1,"result":{"n":1,"by":"worker"}}\n\n',
        'data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n',
        'data: {"jsonrpc":"2.0","id":2,"result":{"n":2,"by":"main"}}\n\n',
      ].join(''),
    );
  });

  it('JSON: a batch mixing a worker result and a main-thread one is joined in order', async () => {
    const body = Object.assign(chunks('[{"jsonrpc":"2.0","id":1,"result":{"n":1}},{"jsonrpc":"2.0","id":2,"result":{"n":2}}]'), {});
    const out = await readAndRewriteJson(body, 1_000_000, 'u', matcher(), log);
    expect(JSON.parse(out.toString('utf8'))).toEqual([
      { jsonrpc: '2.0', id: 1, result: { n: 1, by: 'worker' } },
      { jsonrpc: '2.0', id: 2, result: { n: 2, by: 'main' } },
    ]);
    const single = matcher();
    single.expect(3, { kind: 'rewrite', request: call('big'), shared: false });
    const one = await readAndRewriteJson(chunks('{"id":3,"jsonrpc":"2.0","result":{"n":3}}'), 1_000_000, 'u', single, log);
    expect(one.toString('utf8')).toBe('{"id":3,"jsonrpc":"2.0","result":{"n":3,"by":"worker"}}');
  });

  it('legacy SSE: relayEvent answers a worker result as a promise, and the rest at once', async () => {
    const conn = new LegacyConnections().create();
    conn.pending.set(1, call('big'));
    conn.pending.set(2, call('small'));
    const ctx = { upstream: 'u', sseUrl: new URL('http://up.example/sse'), clientEndpoint: '/u/mcp/message?sessionId=x', rewriter: rewriter(), log };
    const [big, small] = new SseSplitter().push(Buffer.from('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\ndata: {"jsonrpc":"2.0","id":2,"result":{}}\n\n'));
    const deferred = relayEvent(big!, conn, ctx);
    expect(deferred).toBeInstanceOf(Promise);
    expect((await deferred).toString()).toBe('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"by":"worker"}}\n\n');
    const now = relayEvent(small!, conn, ctx);
    expect(Buffer.isBuffer(now) && now.toString()).toBe('data: {"jsonrpc":"2.0","id":2,"result":{"by":"main"}}\n\n');
  });
});

describe('relaying a large response the event loop does not parse (Rewriter.rewriteRaw)', () => {
  function rawMatcher(answer: 'rewrite' | 'mismatch'): { m: ResponseMatcher; calls: unknown[] } {
    const calls: unknown[] = [];
    const r: Rewriter = {
      ...rewriter(),
      offloadBytes: 20,
      rewriteRaw(request, data, id) {
        calls.push([request.tool, typeof data, id]);
        if (answer === 'mismatch') return Promise.resolve({ mismatch: true });
        return Promise.resolve({ stub: { jsonrpc: '2.0', id, result: {} }, serialized: Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"by":"raw"}}`) });
      },
    };
    const m = new ResponseMatcher('u', undefined, { pending: new PendingRequests(), facts: new SessionFacts(), rewriter: r }, log);
    m.expect(1, { kind: 'rewrite', request: call('big'), shared: false });
    m.expect(2, { kind: 'rewrite', request: call('small'), shared: false });
    return { m, calls };
  }
  const response = (id: number): string => `{"result":{"text":"${'x'.repeat(30)}"},"jsonrpc":"2.0","id":${id}}`;

  it('JSON: sends the worker bytes and settles the request, found by the id at the end of the body', async () => {
    const { m, calls } = rawMatcher('rewrite');
    const out = await readAndRewriteJson(chunks(response(1)), 1_000_000, 'u', m, log);
    expect(out.toString('utf8')).toBe('{"jsonrpc":"2.0","id":1,"result":{"by":"raw"}}');
    expect(calls).toEqual([['big', 'object', 1]]);
    expect(m.unanswered()).toEqual([2]);
  });

  it('SSE: a mismatch falls back to parsing on the main thread', async () => {
    const { m, calls } = rawMatcher('mismatch');
    const server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void relaySse(chunks(`data: ${response(2)}\n\n`), res, m, log).then(() => res.end());
    });
    const text = await (await fetch(server.origin)).text();
    expect(calls).toEqual([['small', 'string', 2]]);
    expect(JSON.parse(text.slice('data: '.length))).toEqual({ jsonrpc: '2.0', id: 2, result: { text: 'x'.repeat(30), by: 'main' } });
    expect(m.unanswered()).toEqual([1]);
  });

  it('leaves requests, notifications and unknown ids to the main thread without asking the worker', async () => {
    const { m, calls } = rawMatcher('rewrite');
    const request = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"${'x'.repeat(30)}"}}`;
    expect(m.handleRaw(request)).toBeUndefined();
    expect(m.handleRaw(response(9))).toBeUndefined();
    expect(m.handleRaw('{"id":1}')).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
