/**
 * Regression: progress whose token names no request in flight (a server still reporting on a call that timed
 * out, say) was taken for the only call in flight, and moved that call's deadline on: a call that asked for no
 * progress at all outlived its timeoutMs for as long as the stray progress went on. Now only progress on a
 * request's own token moves its deadline.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { echoCall, openSession, post, sessionHeaders } from './harness.js';

// Never answers a tools/call: sends progress on a token nobody gave it, every 50 ms, 60 times.
const child = rawChild(`(m, out) => {
  let n = 0;
  const timer = setInterval(() => {
    out({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'stray', progress: ++n } });
    if (n === 60) clearInterval(timer);
  }, 50);
}`);

describe('regression: progress on a token that names no request', () => {
  it('does not keep a call that asked for none past its timeoutMs', async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), upstream: { timeoutMs: 500 }, shutdownGraceMs: 0 });
    try {
      const h = sessionHeaders(await openSession(gateway.url));
      const answer = await post(gateway.url, echoCall(1, 'slow'), h);
      expect(answer.messages.find((m) => m.id === 1)).toMatchObject({ error: { data: { code: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' } } });
      // Cut off at its own deadline (about 10 stray events in), not after all 60 of them.
      expect(answer.messages.filter((m) => m.method === 'notifications/progress').length).toBeLessThan(40);
    } finally {
      await gateway.close();
    }
  });
});
