#!/usr/bin/env node
/**
 * The demo upstream behind `npm start`: a small weather-like MCP server on stdio that, like many servers
 * written before structured output existed, declares no outputSchema and answers in text only — a scalar,
 * an object as JSON text, an object inside prose, a list as several text blocks, and a `key: value` report.
 * config/demo.yaml puts the gateway in front of it and turns each answer into validated structuredContent.
 *
 * The data is fixed (no clock, no randomness) so the demo and its test see the same answers every time.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

interface City {
  readonly name: string;
  readonly country: string;
  readonly temperature: number;
  readonly conditions: string;
  readonly humidity: number;
  readonly wind: { readonly speedKmh: number; readonly direction: string };
  readonly station: string;
}

const CITIES: readonly City[] = [
  { name: 'Paris', country: 'FR', temperature: 17, conditions: 'cloudy', humidity: 0.62, wind: { speedKmh: 12, direction: 'NW' }, station: 'LFPG' },
  { name: 'Zurich', country: 'CH', temperature: 11, conditions: 'rain', humidity: 0.81, wind: { speedKmh: 8, direction: 'W' }, station: 'LSZH' },
  { name: 'Lisbon', country: 'PT', temperature: 23, conditions: 'sunny', humidity: 0.48, wind: { speedKmh: 19, direction: 'N' }, station: 'LPPT' },
];

const text = (...blocks: string[]) => ({ content: blocks.map((t) => ({ type: 'text' as const, text: t })) });

function city(name: string): City {
  const found = CITIES.find((c) => c.name.toLowerCase() === name.trim().toLowerCase());
  if (!found) throw new Error(`unknown city "${name}"; try one of ${CITIES.map((c) => c.name).join(', ')}`);
  return found;
}

const server = new McpServer({ name: 'demo-weather', version: '1.0.0' });
const cityArg = { city: z.string().describe('A city name, e.g. Paris') };

server.registerTool('get_temperature', { description: 'Current temperature in °C (a bare number).', inputSchema: cityArg }, async ({ city: name }) =>
  text(String(city(name).temperature)),
);

server.registerTool('get_weather', { description: 'Current weather, as JSON text.', inputSchema: cityArg }, async ({ city: name }) => {
  const c = city(name);
  return text(JSON.stringify({ city: c.name, temperature: c.temperature, conditions: c.conditions, humidity: c.humidity, wind: { speed_kmh: c.wind.speedKmh, direction: c.wind.direction } }));
});

server.registerTool(
  'get_forecast_summary',
  { description: 'A friendly forecast with the numbers embedded in prose.', inputSchema: { ...cityArg, days: z.number().int().min(1).max(5).optional() } },
  async ({ city: name, days }) => {
    const c = city(name);
    const forecast = Array.from({ length: days ?? 3 }, (_, i) => ({ day: i + 1, high: c.temperature + 2 - i, low: c.temperature - 6 + i }));
    return text(`Here is the forecast: ${JSON.stringify({ city: c.name, days: forecast })} Have a nice day.`);
  },
);

server.registerTool('list_cities', { description: 'Cities with weather data, one text block per city.' }, async () =>
  text(...CITIES.map((c) => JSON.stringify({ name: c.name, country: c.country }))),
);

server.registerTool(
  'get_station_report',
  { description: 'The raw report of the weather station nearest to a city, as `key: value` lines.', inputSchema: cityArg },
  async ({ city: name }) => {
    const c = city(name);
    const report = [`station: ${c.station}`, `city: ${c.name}`, 'status: online', `temperature_c: ${c.temperature}`, `humidity: ${c.humidity}`, `wind_kmh: ${c.wind.speedKmh}`, `wind_direction: ${c.wind.direction}`];
    return text(report.join('\n'));
  },
);

await server.connect(new StdioServerTransport());
