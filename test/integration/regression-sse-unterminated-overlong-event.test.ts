/**
 * Regression: an event of a legacy HTTP+SSE upstream that names its answer's id up front and then runs past
 * maxResultBytes without ever ending left its request waiting the whole timeoutMs: the event was dropped as it
 * passed the bound, but reported (and its request failed) only at its blank line, which this upstream never
 * writes. Now it is reported as it passes the bound, as a stdio line is (regression-stdio-unterminated-overlong-line),
 * and the session goes on. The config's timeoutMs is 60 s, the test's own timeout far below it.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { rawLegacyUpstream, type LegacyMessage } from '../helpers/raw-legacy.js';
import { echoCall, openSession, post, sessionHeaders } from '../hostile/harness.js';

const MAX = 64 * 1024;

describe('regression: an over-long legacy SSE event that never ends', () => {
  it('fails its request with RETROFIT_ERR_RESULT_TOO_LARGE before timeoutMs', { timeout: 15_000 }, async () => {
    const up = await rawLegacyUpstream((body, res, legacy) => {
      res.writeHead(202).end();
      const m = body as LegacyMessage;
      if (m.id === undefined) return;
      if (m.method === 'initialize') return legacy.initialized(m.id);
      // The head of an answer, then more than the bound, and never the blank line that ends the event.
      legacy.write(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[{"type":"text","text":"`);
      legacy.write('z'.repeat(2 * MAX));
    });
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', up.url, { timeoutMs: 60_000 })], { limits: { ...gatewayConfig([]).config.limits, maxResultBytes: MAX } }));
    const url = gw.url('/legacy/mcp');
    const h = sessionHeaders(await openSession(url));
    const answer = await post(url, echoCall('big', 'x'), h);
    expect(answer.messages.find((m) => m.id === 'big')).toMatchObject({ error: { data: { code: 'RETROFIT_ERR_RESULT_TOO_LARGE' } } });
  });
});
