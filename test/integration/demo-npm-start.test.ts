/**
 * The demo, started exactly as `npm start` does (`node dist/cli.js --config config/demo.yaml`, on port 0):
 * a v1 client sees the configured schemas in tools/list and gets each text-only answer of the demo server
 * back as validated structuredContent. SIGTERM stops the gateway and its demo child.
 */
import { spawn, execFile, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { alive, REPO } from '../helpers/stdio-gateway.js';

let gateway: ChildProcessWithoutNullStreams | undefined;
let client: Client | undefined;
const lines: Record<string, unknown>[] = [];
let url = '';

/** Resolves with the first log line matching `test`, reading the gateway's stdout as it comes. */
function waitForLog(test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const seen = lines.find(test);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolveLine, reject) => {
    const onLine = (): void => {
      const hit = lines.find(test);
      if (hit) {
        gateway?.stdout.off('data', onLine);
        resolveLine(hit);
      }
    };
    gateway?.stdout.on('data', onLine);
    gateway?.once('exit', (code) => reject(new Error(`gateway exited (${String(code)}) before the expected log line`)));
  });
}

beforeAll(async () => {
  // `npm test` builds first; a lone run of this file builds here.
  if (!existsSync(resolve(REPO, 'dist/cli.js')) || !existsSync(resolve(REPO, 'dist/demo/server.js'))) {
    await promisify(execFile)(process.execPath, [resolve(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO });
  }
  // The test reads the bound address and the child's pid from info-level log lines.
  gateway = spawn(process.execPath, ['dist/cli.js', '--config', 'config/demo.yaml', '--port', '0'], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'info' } });
  // Listeners first, so no line is missed; the parsed lines are read by waitForLog.
  createInterface({ input: gateway.stdout }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ raw: line });
    }
  });
  const listening = await waitForLog((l) => typeof l.address === 'string');
  url = `${String(listening.address)}/weather/mcp`;
  client = new Client({ name: 'demo-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
});

afterAll(async () => {
  await client?.close();
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((r) => gateway!.once('exit', r));
    gateway.kill('SIGKILL');
    await exited;
  }
});

describe('demo: npm start', () => {
  it('injects the configured schema into every demo tool (object roots as is, others wrapped)', async () => {
    const { tools } = await client!.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['get_forecast_summary', 'get_station_report', 'get_temperature', 'get_weather', 'list_cities']);
    expect(byName.get_weather!.outputSchema).toMatchObject({ type: 'object', required: ['city', 'temperature', 'conditions'] });
    expect(byName.get_temperature!.outputSchema).toMatchObject({ type: 'object', properties: { result: { type: 'number' } }, required: ['result'] });
    expect(byName.list_cities!.outputSchema).toMatchObject({ type: 'object', properties: { result: { type: 'array' } } });
  });

  it('turns a bare scalar into structuredContent', async () => {
    const result = await client!.callTool({ name: 'get_temperature', arguments: { city: 'Paris' } });
    expect(result.structuredContent).toEqual({ result: 17 });
    expect(result.content).toEqual([{ type: 'text', text: '17' }]);
  });

  it('turns an object sent as JSON text into structuredContent', async () => {
    const result = await client!.callTool({ name: 'get_weather', arguments: { city: 'Zurich' } });
    expect(result.structuredContent).toEqual({ city: 'Zurich', temperature: 11, conditions: 'rain', humidity: 0.81, wind: { speed_kmh: 8, direction: 'W' } });
  });

  it('finds the object inside prose', async () => {
    const result = await client!.callTool({ name: 'get_forecast_summary', arguments: { city: 'Lisbon', days: 2 } });
    expect(result.structuredContent).toEqual({ city: 'Lisbon', days: [{ day: 1, high: 25, low: 17 }, { day: 2, high: 24, low: 18 }] });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^Here is the forecast: .* Have a nice day\.$/);
  });

  it('turns several text blocks into a list', async () => {
    const result = await client!.callTool({ name: 'list_cities', arguments: {} });
    expect(result.structuredContent).toEqual({ result: [{ name: 'Paris', country: 'FR' }, { name: 'Zurich', country: 'CH' }, { name: 'Lisbon', country: 'PT' }] });
    expect(result.content).toHaveLength(3);
  });

  it('parses a key: value report', async () => {
    const result = await client!.callTool({ name: 'get_station_report', arguments: { city: 'Paris' } });
    expect(result.structuredContent).toEqual({ station: 'LFPG', city: 'Paris', status: 'online', temperature_c: 17, humidity: 0.62, wind_kmh: 12, wind_direction: 'NW' });
  });

  it('serves the operator console the demo config enables, with the calls above counted', async () => {
    const base = url.replace(/\/weather\/mcp$/, '');
    const page = await fetch(`${base}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(/<script type="module"[^>]* src="\/ui\/assets\//);
    const tools = (await (await fetch(`${base}/ui/api/upstreams/weather/tools`)).json()) as { tools: { name: string; totals: { extracted: number } }[] };
    expect(tools.tools.find((t) => t.name === 'get_temperature')?.totals.extracted).toBeGreaterThanOrEqual(1);
  });

  it('leaves tool errors alone', async () => {
    const result = await client!.callTool({ name: 'get_weather', arguments: { city: 'Atlantis' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
  });

  it('stops its demo child on SIGTERM', async () => {
    const started = await waitForLog((l) => l.msg === 'upstream child started');
    const pid = started.pid as number;
    expect(alive(pid)).toBe(true);
    await client!.close();
    client = undefined;
    const exited = new Promise<number | null>((r) => gateway!.once('exit', (code) => r(code)));
    gateway!.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(alive(pid)).toBe(false);
  });
});
