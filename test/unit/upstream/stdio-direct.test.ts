/**
 * stdio-direct.ts: which exchanges take the direct path (everything else stays with the SDK transport), and
 * how a DirectReply writes its response, over a real HTTP server on port 0.
 */
import { IncomingMessage, type ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DirectReply, directRequest } from '../../../src/upstream/stdio-direct.js';
import { listen } from '../../helpers/listen.js';

const GOOD_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };
const CALL = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { progressToken: 9 } } };

function request(headers: Record<string, string> = GOOD_HEADERS, method = 'POST'): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.headers = headers;
  return req;
}

describe('directRequest', () => {
  it('takes one well-formed request with the headers the SDK requires', () => {
    expect(directRequest(request(), CALL)).toEqual({ id: 3, message: CALL, protocolHeader: '2025-06-18' });
    const { 'mcp-protocol-version': _, ...noVersion } = GOOD_HEADERS;
    expect(directRequest(request(noVersion), { jsonrpc: '2.0', id: 'a', method: 'tools/list' })).toMatchObject({ id: 'a', protocolHeader: undefined });
    expect(directRequest(request({ ...GOOD_HEADERS, 'content-type': 'Application/JSON; charset=utf-8' }), CALL)).toBeDefined();
  });

  it.each([
    ['a GET', request(GOOD_HEADERS, 'GET'), CALL],
    ['an Accept without text/event-stream', request({ ...GOOD_HEADERS, accept: 'application/json' }), CALL],
    ['a non-JSON content type', request({ ...GOOD_HEADERS, 'content-type': 'application/jsonx' }), CALL],
    ['an unsupported protocol version', request({ ...GOOD_HEADERS, 'mcp-protocol-version': '1999-01-01' }), CALL],
    ['initialize', request(), { ...CALL, method: 'initialize' }],
    ['a batch', request(), [CALL]],
    ['a notification', request(), { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a response', request(), { jsonrpc: '2.0', id: 1, result: {} }],
    ['a fractional id', request(), { ...CALL, id: 1.5 }],
    ['a null id', request(), { ...CALL, id: null }],
    ['another top-level key', request(), { ...CALL, extra: 1 }],
    ['a wrong jsonrpc', request(), { ...CALL, jsonrpc: '1.0' }],
    ['params that are not an object', request(), { ...CALL, params: [1] }],
    ['a _meta that is not an object', request(), { ...CALL, params: { _meta: 'x' } }],
    ['a bad progress token', request(), { ...CALL, params: { _meta: { progressToken: true } } }],
    ['a related-task _meta', request(), { ...CALL, params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } }],
  ])('leaves %s to the SDK transport', (_label, req, body) => {
    expect(directRequest(req, body)).toBeUndefined();
  });
});

describe('DirectReply', () => {
  /** One exchange whose response `write` fills in; resolves with status, headers and body. */
  async function exchange(write: (reply: DirectReply, res: ServerResponse) => void): Promise<{ status: number; headers: Headers; body: string }> {
    const { origin } = await listen((_req, res) => write(new DirectReply(res, 'sess-1'), res));
    const res = await fetch(origin, { method: 'POST', body: '{}' });
    return { status: res.status, headers: res.headers, body: await res.text() };
  }

  it('answers as JSON, headers and body together, when the answer comes first', async () => {
    const json = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ok: 'é' } });
    const r = await exchange((reply) => reply.answer(json));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(json)));
    expect(r.headers.get('mcp-session-id')).toBe('sess-1');
    expect(r.body).toBe(json);
  });

  it('streams events in the SDK framing once something comes before the answer', async () => {
    const r = await exchange((reply) => {
      reply.event('{"method":"notifications/progress"}');
      reply.answer('{"id":1,"result":{}}');
      // After the answer the reply is closed: nothing more is written.
      reply.event('{"late":true}');
    });
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    expect(r.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(r.headers.get('mcp-session-id')).toBe('sess-1');
    expect(r.body).toBe('event: message\ndata: {"method":"notifications/progress"}\n\nevent: message\ndata: {"id":1,"result":{}}\n\n');
  });

  it('leaves a young reply alone at the first keep-alive tick, then streams keep-alive comments', async () => {
    const r = await exchange((reply) => {
      reply.keepAlive();
      reply.keepAlive();
      reply.keepAlive();
      reply.answer('{"id":1,"result":{}}');
    });
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    expect(r.body).toBe(': keepalive\n\n: keepalive\n\nevent: message\ndata: {"id":1,"result":{}}\n\n');
  });

  it('answers as JSON after a single keep-alive tick', async () => {
    const r = await exchange((reply) => {
      reply.keepAlive();
      reply.answer('{"id":1,"result":{}}');
    });
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body).toBe('{"id":1,"result":{}}');
  });

  it('ends with an empty stream when no answer will come', async () => {
    const r = await exchange((reply) => reply.end());
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    expect(r.body).toBe('');
  });

  it("fails with the SDK's 400 parse error", async () => {
    const r = await exchange((reply) => reply.fail(new RangeError('too deep')));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: 'RangeError: too deep' }, id: null });
  });
});
