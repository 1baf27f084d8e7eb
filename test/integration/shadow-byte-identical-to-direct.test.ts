/**
 * Shadow: the demo config with `shadow: true` on its upstream, one schema made to fail (as a new schema
 * might). A real v1 client sees exactly what it sees talking to the demo server directly over stdio — every
 * message's result serialises to the same bytes, tools/list included — while the metrics count each
 * retrofit with mode="shadow", the failing one with its reasons logged.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import type { JsonObject } from '../../src/json.js';
import { ensureBuilt } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';
import { REPO } from '../helpers/stdio-gateway.js';
import { tempFiles } from '../unit/config/helpers.js';

const DEMO = resolve(REPO, 'dist/demo/server.js');
const CALLS = [
  { name: 'get_temperature', arguments: { city: 'Paris' } },
  { name: 'get_weather', arguments: { city: 'Zurich' } },
  { name: 'get_weather', arguments: { city: 'Atlantis' } },
  { name: 'get_forecast_summary', arguments: { city: 'Lisbon', days: 2 } },
  { name: 'list_cities', arguments: {} },
  { name: 'get_station_report', arguments: { city: 'Paris' } },
];

beforeAll(ensureBuilt);

/** The results of every response the client receives after initialize, serialised as they came off the wire. */
async function session(transport: Transport): Promise<string[]> {
  const seen: string[] = [];
  const client = new Client({ name: 'shadow-check', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(transport);
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if ('result' in message) seen.push(JSON.stringify(message.result));
    deliver(message, extra);
  };
  await client.listTools();
  for (const call of CALLS) await client.callTool(call);
  await client.close();
  return seen;
}

it('the client gets the bytes it gets without the gateway; the retrofits are counted as shadow', async () => {
  // The demo config as shipped, shadowed, with get_station_report's schema asking for a field it never sends.
  const demo = parse(await readFile(resolve(REPO, 'config/demo.yaml'), 'utf8')) as { upstreams: { weather: JsonObject & { tools: Record<string, JsonObject> } } };
  const weather = demo.upstreams.weather;
  const report = weather.tools.get_station_report!;
  report.outputSchema = { ...(report.outputSchema as JsonObject), required: ['station', 'pressure_hpa'] };
  const dir = await tempFiles({});
  await writeFile(join(dir, 'gateway.yaml'), JSON.stringify({ upstreams: { weather: { ...weather, args: [DEMO], shadow: true } } }));
  const gw = await startGateway(await loadConfig(join(dir, 'gateway.yaml')));

  const direct = await session(new StdioClientTransport({ command: process.execPath, args: [DEMO], stderr: 'ignore' }));
  const through = await session(new StreamableHTTPClientTransport(new URL(gw.url('/weather/mcp'))));
  // After initialize (the hook is set once connected): tools/list, then each call, byte for byte.
  expect(through).toHaveLength(CALLS.length + 1);
  expect(through).toEqual(direct);
  expect(through[0]).not.toContain('outputSchema');

  const counted = (await gw.metrics.retrofits.get()).values.map((v) => `${v.labels.tool} ${v.labels.outcome} ${v.labels.format} ${v.labels.mode} ${v.value}`);
  expect(counted).toEqual([
    'get_temperature extracted json shadow 1',
    'get_weather extracted json shadow 1',
    'get_forecast_summary extracted embedded shadow 1',
    'list_cities extracted blocks shadow 1',
    'get_station_report invalid yaml shadow 1',
  ]);
  const failure = gw.logs.find((l) => l.msg === 'retrofit' && l.outcome === 'invalid');
  expect(failure).toMatchObject({ level: 40, tool: 'get_station_report', mode: 'shadow', reasons: ["/ must have required property 'pressure_hpa'"] });
  // Operators read the same from /metrics.
  const scraped = await (await fetch(gw.url('/metrics'))).text();
  expect(scraped).toContain('mcp_retrofit_retrofit_outcomes_total{upstream="weather",tool="get_station_report",outcome="invalid",format="yaml",mode="shadow"} 1');
});
