/**
 * Regression: a request the gateway could not serialise to the child (arguments nested 100k levels deep:
 * JSON.stringify overflows the stack) was answered 400 by the transport, but stayed registered as pending:
 * the session never went idle and shutdown waited its whole grace period for an answer that could not come.
 * Now the request is released when sending fails, so shutdown (with an hour of grace here) is immediate.
 */
import { describe, expect, it } from 'vitest';
import { alive, startStdioGateway } from '../helpers/stdio-gateway.js';
import { echoCall, echoed, openSession, post, sessionHeaders } from './harness.js';

describe('regression: a request too deep to send to a stdio child', () => {
  it('gets 400 and leaves nothing pending: the session still works and shutdown does not wait', async () => {
    const gateway = await startStdioGateway({ shutdownGraceMs: 3_600_000, stdio: { killTimeoutMs: 1_000 } });
    try {
      const session = await openSession(gateway.url);
      const h = sessionHeaders(session);
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      const answer = await post(gateway.url, `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"echo","arguments":{"text":"t","x":${deep}}}}`, h);
      expect(answer.status).toBe(400);
      expect(answer.messages[0]).toMatchObject({ id: null, error: { code: -32700 } });

      expect(echoed((await post(gateway.url, echoCall('after', 'ok'), h)).messages[0])).toBe('ok');
      const [pid] = gateway.routes.pids();
      // Fastify's close drains the pool (waiting for pending requests, up to the grace period): with the
      // leaked entry this waited the full hour (the test timed out).
      await gateway.app.close();
      expect(alive(pid!)).toBe(false);
    } finally {
      await gateway.close();
    }
  });
});
