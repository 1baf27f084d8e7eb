/**
 * A session client in front of a 2026-07-28-only upstream (src/upstream/modern-link.ts) whose tools/call answers
 * `input_required` with nothing to ask, only a `requestState` to echo: the gateway sends the request again at
 * once, but the first answer's end then found the call still in flight with nothing awaited and failed it with
 * RETROFIT_ERR_UPSTREAM_PROTOCOL ("ended without an answer") while the retry was on its way, so the client never
 * got the result. And an upstream that answered so for ever was asked again in a tight loop (10,000 POSTs in
 * 3 s) until timeoutMs: a request now takes at most MAX_INPUT_ROUNDS rounds, as the v2 client does.
 */
import { expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAX_INPUT_ROUNDS } from '../../src/upstream/modern-link.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startRawModern, writeJson } from '../helpers/raw-modern.js';

async function client(url: string): Promise<Client> {
  const c = new Client({ name: 'v1', version: '1.0.0' });
  onTestFinished(() => c.close());
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

it('an input_required with only a requestState is sent again, and the client gets the result of the retry', async () => {
  const states: unknown[] = [];
  const upstream = await startRawModern(['t'], (m, res) => {
    const state = (JSON.parse(m.text) as { params: { requestState?: string } }).params.requestState;
    states.push(state ?? null);
    if (state === 'again') return writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }] } });
    writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'input_required', requestState: 'again' } });
  });
  const gw = await startGateway(gatewayConfig([httpUpstream('modern', upstream)]));
  const c = await client(gw.url('/modern/mcp'));
  expect(await c.callTool({ name: 't', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'done' }] });
  expect(states).toEqual([null, 'again']);
});

it('an upstream that answers input_required for ever is asked at most MAX_INPUT_ROUNDS times again; the client gets a clear error', async () => {
  let calls = 0;
  const upstream = await startRawModern(['t'], (m, res) => {
    calls += 1;
    writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'input_required', requestState: `s${calls}` } });
  });
  const gw = await startGateway(gatewayConfig([httpUpstream('modern', upstream)]));
  const c = await client(gw.url('/modern/mcp'));
  const failed = await c.callTool({ name: 't', arguments: {} }).then(() => undefined, (err: unknown) => err as { code: number; data: unknown });
  expect(failed).toMatchObject({ code: -32002, data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL', reason: `still required input after ${MAX_INPUT_ROUNDS} rounds` } });
  expect(calls).toBe(MAX_INPUT_ROUNDS + 1);
  // The session serves on.
  expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['t']);
});
