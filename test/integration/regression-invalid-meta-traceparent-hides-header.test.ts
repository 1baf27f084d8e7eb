/**
 * Regression: a request whose `params._meta.traceparent` is a string W3C's form rejects (`"garbage"`) started a
 * new trace, though its HTTP `traceparent` header named a valid one: `_meta` won by being a string, not by
 * naming a context. An invalid `_meta` traceparent now names nothing, and the header's context is continued.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { tempFiles } from '../unit/config/helpers.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const META_TRACE = '0af7651916cd43dd8448eb211c80319c';
const SERVER = 2;

describe('regression: an invalid _meta traceparent hid the header\'s', () => {
  it('continues the header\'s trace when _meta\'s is not W3C\'s form, and _meta\'s when it is', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        const { id } = JSON.parse(body.toString('utf8')) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } }));
      });
    });
    const receiver = await startOtlpReceiver();
    const file = join(await tempFiles({}), 'gateway.yaml');
    await writeFile(file, `telemetry: { endpoint: "${receiver.endpoint}", protocol: http/json }\nupstreams:\n  remote:\n    url: ${up.origin}/mcp\n`);
    const gateway = await startGateway(await loadConfig(file));
    const call = async (name: string, traceparent: string): Promise<void> => {
      const answer = await fetch(gateway.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', traceparent: `00-${TRACE_ID}-${PARENT}-01` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: { traceparent } } }),
      });
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
    };
    await call('garbage_meta', 'garbage');
    await call('valid_meta', `00-${META_TRACE}-b7ad6b7169203331-01`);
    await gateway.app.close();

    const span = (tool: string) => receiver.spans.find((s) => s.kind === SERVER && s.name === `tools/call ${tool}`);
    expect([span('garbage_meta')?.traceId, span('garbage_meta')?.parentSpanId]).toEqual([TRACE_ID, PARENT]);
    expect([span('valid_meta')?.traceId, span('valid_meta')?.parentSpanId]).toEqual([META_TRACE, 'b7ad6b7169203331']);
  });
});
