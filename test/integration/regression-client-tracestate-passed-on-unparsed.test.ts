/**
 * Regression: with tracing on, the upstream got a client's `_meta.tracestate` it should not have: one that did
 * not parse became an empty `tracestate` (in `_meta` and as an empty header, which W3C asks vendors not to
 * send), and one beside a `_meta` traceparent that did not parse (the header's context taken instead) went on
 * as the client wrote it, beside the gateway's own traceparent. The upstream now gets the tracestate of the
 * context the gateway continues, and none when it has none.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { tempFiles } from '../unit/config/helpers.js';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('regression: a client tracestate the gateway did not take', () => {
  it('is not passed on; one it took is', async () => {
    const received: { meta: Record<string, unknown>; tracestate: string | string[] | undefined }[] = [];
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        const m = JSON.parse(body.toString('utf8')) as { id: number; params: { _meta: Record<string, unknown> } };
        received.push({ meta: m.params._meta, tracestate: req.headers.tracestate });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ok' }] } }));
      });
    });
    const receiver = await startOtlpReceiver();
    const file = join(await tempFiles({}), 'gateway.yaml');
    await writeFile(file, `telemetry: { endpoint: "${receiver.endpoint}", protocol: http/json }\nupstreams:\n  remote:\n    url: ${up.origin}/mcp\n`);
    const gateway = await startGateway(await loadConfig(file));
    const call = async (meta: Record<string, unknown>, headers: Record<string, string> = {}): Promise<void> => {
      const answer = await fetch(gateway.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {}, _meta: { ...meta, keep: 'me' } } }),
      });
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
    };
    await call({ traceparent: PARENT, tracestate: 'NOT A=VALID;;tracestate' });
    await call({ traceparent: 'garbage', tracestate: 'vendor=raw' }, { traceparent: PARENT });
    await call({ traceparent: PARENT, tracestate: 'congo=t61rcWkgMzE' });
    await gateway.app.close();

    expect(received).toHaveLength(3);
    for (const r of received) expect(r.meta).toMatchObject({ keep: 'me', traceparent: expect.stringMatching(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/) });
    expect(received.map((r) => [r.meta.tracestate, r.tracestate])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
      ['congo=t61rcWkgMzE', 'congo=t61rcWkgMzE'],
    ]);
  });
});
