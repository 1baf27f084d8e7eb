/**
 * Regression (review of the HTTP edge, 2026-12-07): an `initialize` the upstream refuses with a 400 JSON body
 * is read (up to 64 KiB) for the 2026-07-28 hook before it is relayed. A refusal longer than that reached the
 * client as a dropped connection with no byte: leaving the read loop destroyed the upstream's body, whose rest
 * was then to be streamed on. And a refusal whose body broke before a byte of it was written dropped the
 * connection too, where any other answer that fails that early gets the gateway's 502.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { post } from '../hostile/harness.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'refused', version: '1' } } };

/**
 * Refuses every initialize with 400: `size` bytes of JSON-RPC error — past 64 KiB, the last 100 of them wait
 * until `release` is called (the gateway has read what it reads before relaying) — or cut after its first bytes.
 */
async function refusingUpstream(how: { size: number } | 'cut'): Promise<{ url: string; refusal: string; release: () => void }> {
  const refusal = how === 'cut' ? '' : JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'refused', data: 'x'.repeat(how.size) } });
  const waiting: (() => void)[] = [];
  const up = await listen((req, res) => {
    void readBody(req).then(() => {
      if (how === 'cut') {
        res.writeHead(400, { 'content-type': 'application/json', 'content-length': 500 });
        res.write('{"jsonrpc":"2.0","id":1,', () => res.socket?.destroy());
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(refusal) });
      if (refusal.length < 64 * 1024) return void res.end(refusal);
      res.write(refusal.slice(0, -100));
      waiting.push(() => res.end(refusal.slice(-100)));
    });
  });
  return { url: `${up.origin}/mcp`, refusal, release: () => waiting.splice(0).forEach((end) => end()) };
}

/** POST initialize; once the answer's headers are in, the upstream sends its last bytes. */
async function initialize(url: string, release: () => void): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(INIT) });
  release();
  return { status: res.status, text: await res.text() };
}

describe('regression: an initialize the upstream refuses, relayed', () => {
  it.each([
    ['short (read whole)', 2_000],
    ['past the 64 KiB read for the hook (streamed on)', 100_000],
  ])('%s: the client gets the 400 and every byte of it, as directly', async (_label, size) => {
    const up = await refusingUpstream({ size });
    const direct = await initialize(up.url, up.release);
    const gw = await startGateway(gatewayConfig([httpUpstream('up', up.url)]));
    const via = await initialize(gw.url('/up/mcp'), up.release);
    expect(direct.status).toBe(400);
    expect(via.status).toBe(400);
    expect(via.text).toBe(up.refusal);
    expect(via.text).toBe(direct.text);
  });

  it('cut before a byte of it was written: the client gets the gateway 502, not a dropped connection', async () => {
    const up = await refusingUpstream('cut');
    const gw = await startGateway(gatewayConfig([httpUpstream('up', up.url)]));
    const via = await post(gw.url('/up/mcp'), INIT);
    expect(via.status).toBe(502);
    expect(via.messages).toEqual([{ jsonrpc: '2.0', id: 1, error: expect.objectContaining({ data: expect.objectContaining({ code: 'RETROFIT_ERR_UPSTREAM_RESET' }) }) }]);
  });
});
