/**
 * The first 2026-07-28 request to a `url:` upstream asks it a `server/discover` of the gateway's own to learn
 * whether it speaks the revision (src/http/front/url-modern.ts), and every 2026-07-28 request waits for that
 * verdict. The probe bounded the wait for the answer's headers only: an upstream that sent the headers of an
 * event stream and never ended it (or ended it only long after its answer) held the probe, and with it every
 * 2026-07-28 request to that upstream, for ever, and nothing asked again. The answer now has timeoutMs to come,
 * and an event stream is read only until it holds the answer.
 */
import { expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { MODERN, writeJson } from '../helpers/raw-modern.js';

const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** An upstream whose server/discover answer is an event stream that never ends, with `answer` on it if given. */
async function upstream(answer?: unknown): Promise<string> {
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      const m = JSON.parse(body.toString('utf8')) as { id?: string | number; method: string };
      if (m.method === 'server/discover') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': still thinking\n\n');
        if (answer !== undefined) res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: answer })}\n\n`);
        return;
      }
      writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', tools: [{ name: 'proxied', inputSchema: { type: 'object' } }] } });
    });
  });
  return `${origin}/mcp`;
}

async function list(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
  });
  return { status: res.status, body: await res.json() };
}

it('a server/discover answer that never comes decides nothing within timeoutMs: the request is proxied', async () => {
  const gw = await startGateway(gatewayConfig([httpUpstream('up', await upstream(), { timeoutMs: 300 })]));
  expect(await list(gw.url('/up/mcp'))).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', tools: [{ name: 'proxied', inputSchema: { type: 'object' } }] } } });
  expect(gw.logs.some((l) => l.msg === 'server/discover probe of the upstream failed; asked again on the next 2026-07-28 request')).toBe(true);
});

it('a server/discover answer on an event stream the upstream keeps open decides at once', async () => {
  const found = { resultType: 'complete', supportedVersions: [MODERN], capabilities: { tools: {} } };
  // timeoutMs is long: the verdict must not wait for it.
  const gw = await startGateway(gatewayConfig([httpUpstream('up', await upstream(found), { timeoutMs: 60_000 })]));
  expect(await list(gw.url('/up/mcp'))).toMatchObject({ status: 200, body: { result: { tools: [{ name: 'proxied' }] } } });
  expect(gw.logs.some((l) => l.msg === 'the upstream serves 2026-07-28 itself: its clients are proxied')).toBe(true);
});
