/**
 * Regression: with `telemetry.metrics` on, the OTLP histograms took the strings a client chose as attributes,
 * uncut: `mcp.method.name` was any method sent and `gen_ai.tool.name` any tools/call name (a 200,000-character
 * name went into every export whole, and the SDK keeps each series for the process's life). They are labelled
 * as /metrics labels them now: a method MCP does not define is `other`, a tool name longer than 128
 * characters is `other`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { tempFiles } from '../unit/config/helpers.js';

describe('regression: OTLP metric attributes a client chooses', () => {
  it('made-up methods and overlong tool names are `other` on mcp.server.operation.duration', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        const { id } = JSON.parse(body.toString('utf8')) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } }));
      });
    });
    const receiver = await startOtlpReceiver();
    const file = join(await tempFiles({}), 'gateway.yaml');
    await writeFile(file, `telemetry: { endpoint: "${receiver.endpoint}", protocol: http/json, metrics: true }\nupstreams:\n  remote:\n    url: ${up.origin}/mcp\n`);
    const gateway = await startGateway(await loadConfig(file));
    const send = async (message: object, revision = '2025-06-18'): Promise<void> => {
      const answer = await fetch(gateway.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision },
        body: JSON.stringify(message),
      });
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
    };
    const long = `t-${'x'.repeat(20_000)}`;
    await send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: long, arguments: {} } });
    await send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'short', arguments: {} } });
    await send({ jsonrpc: '2.0', id: 3, method: `made/up-${'y'.repeat(5_000)}`, params: {} });
    await send({ jsonrpc: '2.0', id: 4, method: 'ping' }, `2999-${'9'.repeat(3_000)}`);
    // Closing the gateway exports the histograms.
    await gateway.app.close();

    const points = receiver.points.filter((p) => p.metric === 'mcp.server.operation.duration');
    const values = points.flatMap((p) => Object.values(p.attributes).map(String));
    expect(Math.max(...values.map((v) => v.length))).toBeLessThanOrEqual(128);
    const count = (attrs: Record<string, string>): number => points.filter((p) => Object.entries(attrs).every(([k, v]) => p.attributes[k] === v)).reduce((n, p) => n + p.count, 0);
    expect(count({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'other' })).toBe(1);
    expect(count({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'short' })).toBe(1);
    expect(count({ 'mcp.method.name': 'other' })).toBe(1);
    // A made-up MCP-Protocol-Version governs nothing: the request is counted under the revision that did.
    expect(count({ 'mcp.method.name': 'ping', 'mcp.protocol.version': '2025-03-26' })).toBe(1);
  });
});
