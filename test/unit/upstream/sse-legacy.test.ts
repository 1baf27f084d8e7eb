import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { classifyMessage } from '../../../src/jsonrpc/classify.js';
import { createLogger } from '../../../src/log.js';
import type { PendingRequest, Rewriter } from '../../../src/pipeline/rewrite.js';
import { SseSplitter } from '../../../src/stream/sse.js';
import { LegacyConnections, rememberRequests, transformEvent } from '../../../src/upstream/sse-legacy.js';

const log = createLogger({ level: 'silent' });
const seen: PendingRequest[] = [];
const rewriter: Rewriter = {
  needsRewrite: (method) => method === 'tools/call',
  policyOf: () => undefined,
  rewrite: (pending, message) => {
    seen.push(pending);
    return { ...message, result: { ...(message.result as JsonObject), structuredContent: { ok: true } } };
  },
};
const ctx = { upstream: 'u', sseUrl: new URL('http://up.example:9100/sse'), clientEndpoint: '/u/mcp/message?sessionId=abc', rewriter, log };

function events(text: string) {
  return new SseSplitter().push(Buffer.from(text));
}

describe('transformEvent', () => {
  it('remembers the upstream endpoint (resolved against the SSE URL) and announces the gateway route', () => {
    const conn = new LegacyConnections().create();
    const [event] = events('event: endpoint\ndata: /message?sessionId=up-1\n\n');
    expect(transformEvent(event!, conn, ctx).toString()).toBe('event: endpoint\ndata: /u/mcp/message?sessionId=abc\n\n');
    expect(conn.endpoint?.href).toBe('http://up.example:9100/message?sessionId=up-1');
  });

  it('rewrites the response to a remembered tools/call and passes everything else byte for byte', () => {
    const conn = new LegacyConnections().create();
    rememberRequests(conn, 'u', [classifyMessage({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'weather' } })], '2025-06-18');
    const notification = ': keep\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\r\n\r\n';
    const [n] = events(notification);
    expect(transformEvent(n!, conn, ctx).toString()).toBe(notification);
    const [r] = events('event: message\nid: 4\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n\n');
    const out = transformEvent(r!, conn, ctx).toString();
    expect(out).toBe('event: message\nid: 4\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"ok":true}}}\n\n');
    expect(seen.at(-1)).toEqual({ upstream: 'u', method: 'tools/call', tool: 'weather', revision: '2025-06-18' });
    expect(conn.pending.size).toBe(0);
    // An unknown id (already answered) passes untouched.
    expect(transformEvent(r!, conn, ctx)).toBe(r!.raw);
  });

  it('learns the session revision from the initialize result', () => {
    const conn = new LegacyConnections().create();
    rememberRequests(conn, 'u', [classifyMessage({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })], undefined);
    const [r] = events('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}\n\n');
    expect(transformEvent(r!, conn, ctx)).toBe(r!.raw);
    expect(conn.protocolVersion).toBe('2024-11-05');
    const [found] = rememberRequests(conn, 'u', [classifyMessage({ jsonrpc: '2.0', id: 2, method: 'tools/list' })], undefined);
    expect(found).toEqual({ revision: '2024-11-05', source: 'session' });
  });
});
