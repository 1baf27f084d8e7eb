/**
 * Regression: a POST with `Expect: 100-continue` (curl sends it for bodies over 1 KiB) got 502 "unreachable":
 * the gateway forwarded `expect`, undici refused to send it, and every unknown error counted as the
 * upstream's failure although it was never asked. Node answers 100 Continue itself when the body is read; the
 * header stays on its hop. The client gets the upstream's answer, which never sees the header.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(2048) } } });
const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}';

describe('regression: Expect: 100-continue', () => {
  it('is answered by Node, the body goes upstream without the header, and nothing counts as an upstream failure', async () => {
    const seen: { expect: unknown; body: string }[] = [];
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        seen.push({ expect: req.headers.expect, body: body.toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER);
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`)]));
    const answer = await new Promise<{ status: number; text: string; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const req = httpRequest(
        gw.url('/remote/mcp'),
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', expect: '100-continue', 'content-length': Buffer.byteLength(CALL) } },
        (res) => void readBody(res).then((b) => resolve({ status: res.statusCode ?? 0, text: b.toString('utf8'), continued }), reject),
      );
      // The body is sent only once the server said 100 Continue, as curl does.
      req.on('continue', () => {
        continued = true;
        req.end(CALL);
      });
      req.on('error', reject);
    });
    expect(answer).toEqual({ status: 200, text: ANSWER, continued: true });
    expect(seen).toEqual([{ expect: undefined, body: CALL }]);
    expect((await gw.metrics.upstreamErrors.get()).values).toEqual([]);
  });
});
