/**
 * Regression (review of the HTTP edge, 2026-12-07), on a session the gateway holds (stdio): a body opening with
 * a UTF-8 byte order mark got 400 -32700, where the SDK servers ignore the mark and answer; an empty batch `[]`
 * got -32700 (a parse error) where JSON-RPC 2.0 answers -32600 (Invalid Request).
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { echoCall, echoed, openSession, post, sessionHeaders } from './harness.js';

describe('regression: odd bodies on a gateway-held session', () => {
  it('ignores a UTF-8 byte order mark, and answers an empty batch with -32600', async () => {
    const gateway = await startStdioGateway();
    try {
      const session = await openSession(gateway.url);
      const h = sessionHeaders(session);
      const bom = await post(gateway.url, `\ufeff${JSON.stringify(echoCall(1, 'marked'))}`, h);
      expect(bom.status).toBe(200);
      expect(echoed(bom.messages[0])).toBe('marked');

      const empty = await post(gateway.url, '[]', h);
      expect(empty.status).toBe(400);
      expect(empty.messages).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: an empty batch', data: { code: 'RETROFIT_ERR_INVALID_REQUEST' } } }]);
    } finally {
      await gateway.close();
    }
  });
});
