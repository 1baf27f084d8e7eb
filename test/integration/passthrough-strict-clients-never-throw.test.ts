/**
 * Regression (issue 18): `onInvalid: passthrough` used to inject the configured outputSchema and then pass a
 * failing result through without structuredContent, and the SDK clients threw on it (v1: -32600 "Tool get
 * has an output schema but did not return structured content"; v2: a ProtocolError). It now serves the tool
 * in shadow mode: listed without the configured schema, results unchanged. Real v1 and v2 clients call such
 * a tool, whose text fails its schema, without throwing, and the failure is still counted (mode="shadow").
 */
import { resolve } from 'node:path';
import { beforeAll, expect, it, onTestFinished } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { ensureBuilt } from '../helpers/cli.js';
import { stdioUpstream, gatewayConfig } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { connectV1, REPO } from '../helpers/stdio-gateway.js';

const DEMO = resolve(REPO, 'dist/demo/server.js');
// get_weather answers {city, temperature, conditions, humidity, wind}: no pressure, so every answer fails.
const FAILING = { type: 'object', properties: { pressure_hpa: { type: 'number' } }, required: ['pressure_hpa'] };
const WEATHER_TEXT = '{"city":"Paris","temperature":17,"conditions":"cloudy","humidity":0.62,"wind":{"speed_kmh":12,"direction":"NW"}}';

beforeAll(ensureBuilt);

async function gateway(): Promise<TestGateway> {
  const upstream = stdioUpstream('weather', process.execPath, {
    args: [DEMO],
    cwd: REPO,
    tools: {
      get_weather: { outputSchema: FAILING, extract: { format: 'json' }, onInvalid: 'passthrough' },
      get_temperature: { outputSchema: { type: 'number' } },
    },
  });
  return startGateway(gatewayConfig([upstream]));
}

async function outcomes(gw: TestGateway): Promise<string[]> {
  return (await gw.metrics.retrofits.get()).values.map((v) => `${v.labels.tool} ${v.labels.outcome} ${v.labels.mode} ${v.value}`);
}

it('v1 client: the passthrough tool is listed without the schema and called without a throw', async () => {
  const gw = await gateway();
  const client = await connectV1(gw.url('/weather/mcp'), 'v1');
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  expect(byName.get('get_weather')).not.toHaveProperty('outputSchema');
  expect(byName.get('get_temperature')?.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'number' } }, required: ['result'] });

  const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  expect(weather).toEqual({ content: [{ type: 'text', text: WEATHER_TEXT }] });
  // The tool beside it is served as configured.
  expect((await client.callTool({ name: 'get_temperature', arguments: { city: 'Paris' } })).structuredContent).toEqual({ result: 17 });
  expect(await outcomes(gw)).toEqual(['get_weather invalid shadow 1', 'get_temperature extracted applied 1']);
  const warned = gw.logs.find((l) => l.msg === 'retrofit' && l.tool === 'get_weather');
  expect(warned).toMatchObject({ level: 40, outcome: 'invalid', mode: 'shadow', reasons: ["/ must have required property 'pressure_hpa'"] });
});

it('v2 client: the same, against the schemas it cached from tools/list', async () => {
  const gw = await gateway();
  const client = new ClientV2({ name: 'v2', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(new TransportV2(new URL(gw.url('/weather/mcp'))));
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === 'get_weather')).not.toHaveProperty('outputSchema');
  const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  expect(weather.content).toEqual([{ type: 'text', text: WEATHER_TEXT }]);
  expect(weather).not.toHaveProperty('structuredContent');
  expect(weather.isError).toBeFalsy();
  expect(await outcomes(gw)).toEqual(['get_weather invalid shadow 1']);
});
