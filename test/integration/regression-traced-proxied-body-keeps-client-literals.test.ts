/**
 * The proxied route sends a Streamable HTTP upstream the client's own bytes, except when tracing adds each
 * request's span context to its `_meta` (src/http/trace.ts tracedUpstream): that body was written again from the
 * parsed messages, so every number literal a double cannot hold arrived rounded (`"n": 12345678901234567890` as
 * 12345678901234567000, `1e400` as null), alone or in a batch. A raw upstream records the bytes it received.
 */
import { expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';

const ARGS = '{"n":12345678901234567890,"x":1e400,"y":0.1000000000000000055511151231257827}';
const call = (id: number): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":${ARGS}}}`;

it('a traced proxied request reaches the upstream with its trace context and the client\'s number literals, alone or in a batch', async () => {
  const received: string[] = [];
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      const text = body.toString('utf8');
      received.push(text);
      const parsed = JSON.parse(text) as { id: number } | { id: number }[];
      const answer = (m: { id: number }): string => `{"jsonrpc":"2.0","id":${m.id},"result":{"content":[]}}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Array.isArray(parsed) ? `[${parsed.map(answer).join(',')}]` : answer(parsed));
    });
  });
  const receiver = await startOtlpReceiver();
  const gw = await startGateway(gatewayConfig([httpUpstream('up', `${origin}/mcp`)], { telemetry: { endpoint: receiver.endpoint, protocol: 'http/json' } }));
  for (const body of [call(7), `[ ${call(8)} ,\n${call(9)} ]`]) {
    const res = await fetch(gw.url('/up/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body,
    });
    expect(res.status, body).toBe(200);
    await res.text();
    const got = received.at(-1)!;
    // Written again: each request carries its span's context.
    expect(got, body).toContain('"traceparent"');
    expect(got.split(`"arguments":${ARGS}`), body).toHaveLength(body.startsWith('[') ? 3 : 2);
  }
});
