/**
 * When a text result cannot be made valid, a strict client receives an `isError` tool result naming the tool and
 * each failure with its JSON pointer — never a thrown protocol error — and the original text is kept.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';

const DEMO = resolve('dist/demo/server.js');
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'retrofit-invalid-'));
  writeFileSync(
    join(dir, 'gateway.yaml'),
    `
upstreams:
  weather:
    command: node
    args: [${JSON.stringify(DEMO)}]
    tools:
      get_weather:
        extract: { format: json }
        outputSchema:
          type: object
          properties:
            city: { type: string, maxLength: 3 }
            temperature: { type: string }
            conditions: { const: snow }
          required: [city, temperature, conditions, pressure]
      get_station_report:
        outputSchema: { type: object, required: [station] }
        extract: { format: json }
`,
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an invalid result through real clients', () => {
  it('v1 client: isError with the tool name and one pointer per failure; text kept; counted', async () => {
    const gw = await startGateway(await loadConfig(join(dir, 'gateway.yaml')));
    const client = new Client({ name: 'v1', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/weather/mcp'))));
    await client.listTools();

    const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const texts = (result.content as { type: string; text: string }[]).map((c) => c.text);
    expect(JSON.parse(texts[0]!)).toMatchObject({ city: 'Paris', temperature: 17 }); // the original text, first
    const reasons = texts.at(-1)!;
    expect(reasons).toContain('get_weather');
    for (const pointer of ['/city', '/temperature', '/conditions']) expect(reasons).toContain(pointer);
    expect(reasons).toMatch(/pressure/);

    // Nothing to parse: "unparseable", still a tool error.
    const report = await client.callTool({ name: 'get_station_report', arguments: { city: 'Paris' } });
    expect(report.isError).toBe(true);
    expect((report.content as { text: string }[]).at(-1)!.text).toContain('get_station_report');

    const outcomes = (await gw.metrics.retrofits.get()).values.map((v) => v.labels.outcome);
    expect(outcomes).toEqual(expect.arrayContaining(['invalid', 'unparseable']));
    expect(gw.logs.some((l) => l.msg === 'retrofit' && l.outcome === 'invalid' && Array.isArray(l.reasons))).toBe(true);
  });

  it('v2 client: the same isError result, no thrown error', async () => {
    const gw = await startGateway(await loadConfig(join(dir, 'gateway.yaml')));
    const client = new ClientV2({ name: 'v2', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new StreamableHTTPClientTransportV2(new URL(gw.url('/weather/mcp'))));
    await client.listTools();
    const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('/temperature');
  });
});
