/**
 * The operator console's API against a real gateway (`serve` in-process, port 0) in front of the demo server
 * (a stdio child), with a real v1 SDK client: the shapes of docs/console.md, tools totals equal to /metrics,
 * a failing call's reason with its pointer and its text scrubbed of the call's arguments, sessions listed
 * while open and gone once ended, and events ticking after calls. Learn and apply: console-learn-apply.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { startServe, type Served } from '../helpers/serve.js';
import { REPO } from '../helpers/stdio-gateway.js';

const DEMO = resolve(REPO, 'dist/demo/server.js');

function configText(rec: string): string {
  return `# the console test's gateway
ui:
  enabled: true
  write: true
  samples: 5
upstreams:
  weather:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(DEMO)}]
    record: { dir: ${JSON.stringify(rec)} }
    tools:
      # the demo's temperature is a number: this schema makes every get_weather fail at /temperature
      get_weather:
        extract: { format: json }
        outputSchema: { type: object, properties: { temperature: { type: string } } }
      get_temperature:
        extract: { format: json }
        outputSchema: { type: integer }
`;
}

async function api<T>(gw: Served, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${gw.origin}/ui/api/${path}`, init);
  return { status: response.status, body: (await response.json()) as T };
}

async function client(gw: Served): Promise<{ c: Client; end: () => Promise<void> }> {
  const c = new Client({ name: 'console-test', version: '2.1' });
  onTestFinished(() => c.close());
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.origin}/weather/mcp`));
  await c.connect(transport);
  // DELETE, then close: the session ends on the gateway.
  return { c, end: async () => { await transport.terminateSession(); await c.close(); } };
}

/** `mcp_retrofit_retrofit_outcomes_total` of one tool from /metrics, summed as the console sums it. */
async function metricTotals(gw: Served, tool: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${gw.origin}/metrics`)).text();
  const totals: Record<string, number> = { native: 0, extracted: 0, invalid: 0, unparseable: 0, shadow: 0 };
  for (const line of text.split('\n')) {
    const m = /^mcp_retrofit_retrofit_outcomes_total\{(.*)\} (\d+)$/.exec(line);
    if (!m || !m[1]!.includes(`tool="${tool}"`)) continue;
    const outcome = /outcome="(\w+)"/.exec(m[1]!)![1]!;
    const key = m[1]!.includes('mode="shadow"') ? 'shadow' : outcome;
    totals[key] = (totals[key] ?? 0) + Number(m[2]);
  }
  return totals;
}

interface ToolsBody {
  upstream: string;
  windowMs: number;
  stepMs: number;
  end: number;
  tools: { name: string; schema: string; mode: string; totals: Record<string, number>; series: Record<string, number[]>; addedMs: { p50: number; p95: number; count: number } | null }[];
}

beforeAll(ensureBuilt);

describe('console API', () => {
  it('answers the contract: overview, upstreams, tools equal to /metrics, failures with pointers, sessions, events', async () => {
    const rec = mkdtempSync(join(tmpdir(), 'retrofit-console-rec-'));
    onTestFinished(() => rmSync(rec, { recursive: true, force: true }));
    const gw = await startServe(configText(rec));

    const overview = await api<{ version: string; write: boolean; csrf: string; recordingUpstreams: string[]; startedAt: number }>(gw, 'overview');
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ write: true, recordingUpstreams: ['weather'] });
    expect(overview.body.csrf).toMatch(/^[\w-]{20,}$/);

    // The event stream opens with where things stand, then ticks on change.
    const events = await fetch(`${gw.origin}/ui/api/events`);
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = events.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^event: tick\ndata: \{"at":\d+,"seq":\d+\}\n\n$/);

    const { c, end } = await client(gw);
    await c.listTools();
    for (const city of ['Paris', 'Zurich', 'Lisbon']) await c.callTool({ name: 'get_temperature', arguments: { city } });
    for (const city of ['Paris', 'Zurich']) {
      const result = await c.callTool({ name: 'get_weather', arguments: { city } });
      expect(result.isError).toBe(true);
    }
    // A tick came after the calls.
    const tick = new TextDecoder().decode((await reader.read()).value);
    expect(tick).toMatch(/^event: tick\n/);

    const tools = await api<ToolsBody>(gw, 'upstreams/weather/tools');
    expect(tools.status).toBe(200);
    expect(tools.body).toMatchObject({ upstream: 'weather', windowMs: 3_600_000, stepMs: 60_000 });
    const byName = new Map(tools.body.tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(['get_forecast_summary', 'get_station_report', 'get_temperature', 'get_weather', 'list_cities']);
    expect(byName.get('get_temperature')).toMatchObject({ schema: 'configured', mode: 'on', totals: { extracted: 3, invalid: 0 } });
    expect(byName.get('list_cities')).toMatchObject({ schema: 'none', mode: 'unseen' });
    for (const name of ['get_temperature', 'get_weather']) expect(byName.get(name)!.totals).toEqual(await metricTotals(gw, name));
    const temperature = byName.get('get_temperature')!;
    expect(temperature.series.extracted).toHaveLength(60);
    expect((temperature.series.extracted ?? []).reduce((a, b) => a + b, 0)).toBe(3);
    expect(temperature.addedMs?.count).toBe(3);

    const weather = await api<{ outputSchema: unknown; extract: unknown; failures: { outcome: string; format: string; text: string; reasons: { pointer: string | null; message: string }[] }[]; successes: unknown[] }>(gw, 'upstreams/weather/tools/get_weather');
    expect(weather.status).toBe(200);
    expect(weather.body.extract).toEqual({ format: 'json' });
    expect(weather.body.failures).toHaveLength(2);
    const [newest] = weather.body.failures;
    expect(newest).toMatchObject({ outcome: 'invalid', format: 'json', reasons: [{ pointer: '/temperature', message: 'must be string' }] });
    // The city was an argument of the call: the text does not keep it.
    expect(newest!.text).toContain('"city":"REDACTED"');
    expect(newest!.text).not.toContain('Zurich');
    const temp = await api<{ successes: { structuredContent: unknown; text: string }[] }>(gw, 'upstreams/weather/tools/get_temperature');
    expect(temp.body.successes[0]).toMatchObject({ text: '23', structuredContent: { result: 23 } });

    const missing = await api<{ error: { data: { code: string } } }>(gw, 'upstreams/weather/tools/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.data.code).toBe('RETROFIT_ERR_UI_NOT_FOUND');

    const upstreams = await api<{ upstreams: Record<string, unknown>[] }>(gw, 'upstreams');
    expect(upstreams.body.upstreams).toEqual([
      expect.objectContaining({ name: 'weather', kind: 'stdio', path: '/weather/mcp', sessions: 1, children: 1, recording: true, revision: expect.any(String), ready: expect.objectContaining({ ok: true }), tools: { seen: 5, typed: 2 } }),
    ]);

    const sessions = await api<{ total: number; byClient: Record<string, number>; sessions: { id: string; client: unknown; revision: string }[] }>(gw, 'sessions');
    expect(sessions.body.total).toBe(1);
    expect(sessions.body.byClient).toEqual({ 'console-test': 1 });
    expect(sessions.body.sessions[0]).toMatchObject({ client: { name: 'console-test', version: '2.1' }, revision: expect.any(String) });
    expect(sessions.body.sessions[0]!.id).toMatch(/^.{8}…$/);
    await end();
    await vi.waitFor(async () => expect((await api<{ total: number }>(gw, 'sessions')).body.total).toBe(0));

    await reader.cancel();
  });
});
