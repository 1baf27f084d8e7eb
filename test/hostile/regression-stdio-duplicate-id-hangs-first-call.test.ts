/**
 * Regression: on a stdio session, a second request reusing the id of one still in flight took over the
 * transport's id→stream mapping, so the first request's answer went to the second stream and the first
 * POST hung forever. Now the second request is refused with 409 RETROFIT_ERR_DUPLICATE_ID before it reaches
 * the transport, and the first one still ends (here: with an error when the gateway shuts down).
 *
 * And (review of the HTTP edge, 2026-12-07): two requests of one batch sharing an id both ran, and only one
 * answer came back, with 200. The batch is refused the same way, before any of it reaches the child.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { echoCall, echoed, openSession, post, sessionHeaders } from './harness.js';

describe('regression: a duplicate id in flight on a stdio session', () => {
  it('is refused with 409 and does not steal the first request’s stream', async () => {
    const gateway = await startStdioGateway({ stdio: { killTimeoutMs: 1_000 } });
    try {
      const session = await openSession(gateway.url);
      const h = sessionHeaders(session);
      const first = post(gateway.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'block', arguments: {} } }, h);
      await gateway.waitForLog((l) => l.line === 'blocking');

      const second = await post(gateway.url, echoCall(7, 'steal'), h);
      expect(second.status).toBe(409);
      expect(second.messages).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'request id 7 is already in flight in this session', data: { code: 'RETROFIT_ERR_DUPLICATE_ID' } } }]);
      // The string "7" is a different id.
      const other = await post(gateway.url, echoCall('7', 'fine'), h);
      expect(echoed(other.messages[0])).toBe('fine');

      await gateway.close();
      const ended = await first;
      expect(ended.messages.find((m) => m.id === 7)).toMatchObject({ error: { code: -32000, data: { code: 'RETROFIT_ERR_UPSTREAM_EXITED' } } });
    } finally {
      await gateway.close();
    }
  });

  it('twice in one batch: the batch is refused with 409 and none of it reaches the child', async () => {
    const gateway = await startStdioGateway();
    try {
      const session = await openSession(gateway.url);
      const h = sessionHeaders(session);
      const batch = await post(gateway.url, [{ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'block', arguments: {} } }, echoCall(9, 'second')], h);
      expect(batch.status).toBe(409);
      expect(batch.messages).toEqual([{ jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'request id 9 is already in flight in this session', data: { code: 'RETROFIT_ERR_DUPLICATE_ID' } } }]);
      // The child reads its stdin in order: had the batch reached it, it would have blocked before this answer.
      const after = await post(gateway.url, echoCall(10, 'after'), h);
      expect(echoed(after.messages[0])).toBe('after');
      expect(gateway.logs.some((l) => l.line === 'blocking')).toBe(false);
      // 9 and "9" are different ids: a batch of both is no duplicate.
      const both = await post(gateway.url, [echoCall(11, 'a'), echoCall('11', 'b')], h);
      expect(both.messages.map((m) => echoed(m)).sort()).toEqual(['a', 'b']);
    } finally {
      await gateway.close();
    }
  });
});
