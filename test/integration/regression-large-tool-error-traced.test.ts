/**
 * Regression: a tools/call answer past 256 KiB of a tool with a configured outputSchema is read on the worker
 * thread, unparsed, and that path recorded less on the request's span than the inline one does for a small
 * answer: no `error.type=tool_error` (nor the error status) for an `isError` result, no retrofit cost, and no
 * captured result text (telemetry.captureContent). Now the worker reports what the span records of the result
 * it held, and a large `isError` answer's span is the small one's but for the sizes and the cut text.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { CONTENT_MAX } from '../../src/telemetry/spans.js';
import { startGateway } from '../helpers/gateway.js';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { startV1Server } from '../helpers/v1-server.js';
import { tempFiles } from '../unit/config/helpers.js';

const SERVER = 2;
const LARGE = `the city is unknown: ${'x'.repeat(300 * 1024)}`;
const SMALL = 'the city is unknown';

describe('regression: a large isError answer of a configured tool, traced', () => {
  it.each([
    ['JSON', true],
    ['SSE', false],
  ])('%s responses: its span has the status and attributes of a small one', async (_name, jsonResponse) => {
    const upstream = await startV1Server({
      jsonResponse,
      build: () => {
        const server = new McpServer({ name: 'traced', version: '1.0.0' });
        server.registerTool('small', {}, async () => ({ content: [{ type: 'text', text: SMALL }], isError: true }));
        server.registerTool('large', {}, async () => ({ content: [{ type: 'text', text: LARGE }], isError: true }));
        return server;
      },
    });
    const receiver = await startOtlpReceiver();
    const dir = await tempFiles({});
    const file = join(dir, 'gateway.yaml');
    await writeFile(
      file,
      `telemetry: { endpoint: "${receiver.endpoint}", protocol: http/json, captureContent: true }
upstreams:
  http:
    url: ${upstream.url}
    tools:
      small: { outputSchema: { type: object } }
      large: { outputSchema: { type: object } }
`,
    );
    const gateway = await startGateway(await loadConfig(file));
    const client = new Client({ name: 'c', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('/http/mcp'))));
    await client.listTools();
    const small = await client.callTool({ name: 'small', arguments: {} });
    const large = await client.callTool({ name: 'large', arguments: {} });
    expect([small.isError, large.isError]).toEqual([true, true]);
    await client.close();
    await gateway.app.close();

    // The large answer went to the worker unparsed.
    expect(gateway.logs.filter((l) => l.msg === 'retrofit offloaded to a worker')).toEqual([expect.objectContaining({ tool: 'large', unparsed: true })]);
    const span = (name: string): ReceivedSpan => {
      const found = receiver.spans.filter((s) => s.kind === SERVER && s.name === `tools/call ${name}`);
      expect(found).toHaveLength(1);
      return found[0]!;
    };
    const s = span('small');
    const l = span('large');
    expect([s.status, s.attributes['error.type']]).toEqual([2, 'tool_error']);
    expect([l.status, l.attributes['error.type']]).toEqual([s.status, s.attributes['error.type']]);
    expect(Object.keys(l.attributes).sort()).toEqual(Object.keys(s.attributes).sort());
    const differing = ['jsonrpc.request.id', 'mcp.session.id', 'gen_ai.tool.name', 'mcp_retrofit.duration_ms', 'mcp_retrofit.text_bytes', 'mcp_retrofit.result_bytes', 'gen_ai.tool.call.result'];
    const rest = (x: ReceivedSpan) => Object.fromEntries(Object.entries(x.attributes).filter(([k]) => !differing.includes(k)));
    expect(rest(l)).toEqual(rest(s));
    expect(s.attributes['gen_ai.tool.call.result']).toBe(SMALL);
    // Cut at CONTENT_MAX (the provider's attribute limit may cut the ellipsis too).
    const text = String(l.attributes['gen_ai.tool.call.result']);
    expect(text.startsWith(LARGE.slice(0, CONTENT_MAX - 1))).toBe(true);
    expect(text.length).toBeLessThanOrEqual(CONTENT_MAX + 1);
    expect(l.attributes['mcp_retrofit.text_bytes']).toBe(LARGE.length);
    expect(Number(l.attributes['mcp_retrofit.result_bytes'])).toBeGreaterThan(LARGE.length);
  });
});
