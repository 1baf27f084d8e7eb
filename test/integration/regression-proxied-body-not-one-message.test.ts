/**
 * Regression (found by `npm run faults`, kind endless on the http and stateless-modern targets, seeds 904 and
 * 489855): a `url:` upstream's JSON body holding an answer and then the start of a message that never ended,
 * within maxResultBytes, to a call of a tool nothing rewrites (no configured schema, no structuredContent: the
 * body is not read), reached the client as it came with 200 — no client can parse it, and a strict one waits for
 * its answer until its own timeout. Now a body awaited here that does not start and end as one JSON object or
 * array becomes RETROFIT_ERR_UPSTREAM_PROTOCOL; one that does still passes unread.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { post } from '../hostile/harness.js';

const PROTOCOL_ERROR = { code: -32002, message: 'upstream "cut" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } };

/** Answers tools/call with a JSON body: whole, or (tool `cut*`) followed by a message cut off in its text. */
async function cutUpstream(): Promise<string> {
  const up = await listen((req, res) => {
    void readBody(req).then((body) => {
      const m = JSON.parse(body.toString()) as { id?: number; method: string; params?: { name?: string } };
      if (m.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'cut', version: '1' } } }));
        return;
      }
      if (m.id === undefined) return void res.writeHead(202).end();
      const name = m.params?.name ?? '';
      const text = name.includes('large') ? 'x'.repeat(300_000) : 'hi';
      const answer = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text }] } });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(name.startsWith('cut') ? `${answer}{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'y'.repeat(1000)}` : `${answer}\n`);
    });
  });
  return `${up.origin}/mcp`;
}

describe('regression: a proxied JSON body that is not one message, to a call nothing rewrites', () => {
  it.each([
    ['small', 'cut'],
    ['past 256 KiB', 'cut_large'],
  ])('%s: the client gets UPSTREAM_PROTOCOL; a whole body passes as it came', async (_label, tool) => {
    const gw = await startGateway(gatewayConfig([httpUpstream('cut', await cutUpstream())]));
    const url = gw.url('/cut/mcp');
    const headers = { 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-06-18' };
    const call = (id: number, name: string) => post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }, headers);

    const answer = await call(1, tool);
    expect(answer.status).toBe(502);
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 1, error: PROTOCOL_ERROR }]);
    expect(gw.logs.some((l) => l.msg === 'upstream JSON body does not end as a JSON message; its request gets an error')).toBe(true);
    const whole = await call(2, tool.replace('cut', 'whole'));
    expect(whole.status).toBe(200);
    expect(whole.text).toMatch(/\n$/);
    expect(whole.messages).toHaveLength(1);
  });
});
