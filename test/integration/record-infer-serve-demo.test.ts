/**
 * From zero to typed on the demo server (src/demo/server.ts, text only): a session recorded through the
 * gateway, `infer` on the recordings, a gateway on the inferred config, and the same session through it gets
 * validated structuredContent from every tool, with schemas no looser than the answers warrant.
 */
import { resolve } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { expectTyped, recordInferServe, type ScriptedCall } from '../helpers/record-infer.js';
import { REPO } from '../helpers/stdio-gateway.js';

const DEMO = resolve(REPO, 'dist/demo/server.js');
const CALLS: readonly ScriptedCall[] = [
  { tool: 'get_temperature', arguments: { city: 'Paris' } },
  { tool: 'get_temperature', arguments: { city: 'Lisbon' } },
  { tool: 'get_weather', arguments: { city: 'Paris' } },
  { tool: 'get_weather', arguments: { city: 'Zurich' } },
  { tool: 'get_weather', arguments: { city: 'Atlantis' } },
  { tool: 'get_forecast_summary', arguments: { city: 'Paris' } },
  { tool: 'get_forecast_summary', arguments: { city: 'Lisbon', days: 5 } },
  { tool: 'list_cities' },
  { tool: 'get_station_report', arguments: { city: 'Zurich' } },
  { tool: 'get_station_report', arguments: { city: 'Lisbon' } },
];

beforeAll(ensureBuilt);

it('record → infer → serve: every demo tool gets valid structuredContent', async () => {
  const walk = await recordInferServe('weather', () => ({ command: process.execPath, args: [DEMO] }), CALLS);
  // Every successful call was recorded (the unknown city's error result is not a sample).
  expect(walk.files).toEqual({ get_temperature: 2, get_weather: 2, get_forecast_summary: 2, list_cities: 1, get_station_report: 2 });
  expect(Object.keys(walk.inferred).sort()).toEqual(['get_forecast_summary', 'get_station_report', 'get_temperature', 'get_weather', 'list_cities']);
  expectTyped(walk, CALLS);

  const { inferred } = walk;
  expect(inferred.get_temperature).toEqual({ extract: { format: 'json' }, outputSchema: { type: 'integer' } });
  expect(inferred.get_station_report?.extract).toEqual({ format: 'yaml' });
  expect(inferred.get_station_report?.outputSchema.required).toEqual(['station', 'city', 'status', 'temperature_c', 'humidity', 'wind_kmh', 'wind_direction']);
  expect(inferred.get_weather?.outputSchema).toMatchObject({ type: 'object', required: ['city', 'temperature', 'conditions', 'humidity', 'wind'], properties: { wind: { required: ['speed_kmh', 'direction'] } } });
  // days: 3 and 5 items, each with day, high, low.
  expect(inferred.get_forecast_summary?.outputSchema).toMatchObject({ required: ['city', 'days'], properties: { days: { type: 'array', items: { required: ['day', 'high', 'low'] } } } });
  expect(inferred.list_cities?.outputSchema).toMatchObject({ type: 'array', items: { required: ['name', 'country'] } });

  // The values the client gets are the server's, typed.
  const [paris] = walk.typed.results;
  expect(paris?.structuredContent).toEqual({ result: 17 });
  expect(walk.typed.results[8]?.structuredContent).toMatchObject({ station: 'LSZH', status: 'online', temperature_c: 11, humidity: 0.81 });
  const outcomes = (await walk.gateway.metrics.retrofits.get()).values.map((v) => `${v.labels.tool} ${v.labels.outcome} ${v.labels.mode} ${v.value}`);
  expect(outcomes.sort()).toEqual(['get_forecast_summary extracted applied 2', 'get_station_report extracted applied 2', 'get_temperature extracted applied 2', 'get_weather extracted applied 2', 'list_cities extracted applied 1']);
});
