/**
 * Learn → apply through the console: a recording gateway (`serve` in-process) in front of the demo server,
 * calls recorded, the Learn API's proposal (confidence, diff, trial, samples), the write refused without the
 * CSRF token, with another content type or from a foreign Origin, then applied: the config file gets the entry
 * (its comments kept, a .bak of the previous one), serve reloads it, and the next client is listed the schema.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, expect, it, onTestFinished, vi } from 'vitest';
import { parse } from 'yaml';
import { ensureBuilt } from '../helpers/cli.js';
import { startServe, type Served } from '../helpers/serve.js';
import { REPO } from '../helpers/stdio-gateway.js';

const DEMO = resolve(REPO, 'dist/demo/server.js');

const configText = (rec: string): string => `# kept through apply
ui: { enabled: true, write: true }
upstreams:
  weather:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(DEMO)}]
    record: { dir: ${JSON.stringify(rec)} } # learn from these
`;

async function listed(gw: Served): Promise<{ name: string; outputSchema?: unknown }[]> {
  const c = new Client({ name: 'next', version: '1' });
  onTestFinished(() => c.close());
  await c.connect(new StreamableHTTPClientTransport(new URL(`${gw.origin}/weather/mcp`)));
  const { tools } = await c.listTools();
  await c.close();
  return tools;
}

interface LearnBody {
  upstream: string;
  results: number;
  write: boolean;
  yaml: string;
  tools: { tool: string; samples: number; confidence: string | null; proposal: { extract?: unknown; outputSchema: unknown } | null; running: unknown; diff: string; trial: { passed: number; failed: number } | null; sampleFiles: string[] }[];
}

beforeAll(ensureBuilt);

it('learns a schema from recordings, and applies it to the config (write on) with the checks of check', async () => {
  const rec = mkdtempSync(join(tmpdir(), 'retrofit-console-learn-'));
  onTestFinished(() => rmSync(rec, { recursive: true, force: true }));
  const gw = await startServe(configText(rec));
  const before = readFileSync(gw.file, 'utf8');

  const c = new Client({ name: 'recorder', version: '1' });
  onTestFinished(() => c.close());
  await c.connect(new StreamableHTTPClientTransport(new URL(`${gw.origin}/weather/mcp`)));
  for (const city of ['Paris', 'Zurich', 'Lisbon']) await c.callTool({ name: 'get_weather', arguments: { city } });
  await c.close();
  expect((await listed(gw)).find((t) => t.name === 'get_weather')?.outputSchema).toBeUndefined();

  // The recorder writes in batches: the Learn page shows the samples once they are on disk.
  const learnUrl = `${gw.origin}/ui/api/learn/weather`;
  const learned = await vi.waitFor(
    async () => {
      const body = (await (await fetch(learnUrl)).json()) as LearnBody;
      expect(body.tools.find((t) => t.tool === 'get_weather')?.samples).toBe(3);
      return body;
    },
    { timeout: 15_000, interval: 250 },
  );
  const weather = learned.tools.find((t) => t.tool === 'get_weather')!;
  expect(learned).toMatchObject({ upstream: 'weather', results: 3, write: true });
  expect(weather).toMatchObject({ confidence: 'medium', running: null, trial: { passed: 3, failed: 0 } });
  expect(weather.proposal).toMatchObject({ extract: { format: 'json' }, outputSchema: { type: 'object' } });
  expect(weather.sampleFiles).toHaveLength(3);
  expect(weather.diff).toMatch(/^--- running\n\+\+\+ proposed\n@@ -0,0 \+1,\d+ @@\n\+get_weather:\n/);
  expect(learned.yaml).toContain('tools:');
  expect((await fetch(`${gw.origin}/ui/api/learn/nope`)).status).toBe(404);

  const { csrf } = (await (await fetch(`${gw.origin}/ui/api/overview`)).json()) as { csrf: string };
  const apply = (headers: Record<string, string>, body = JSON.stringify({ tools: ['get_weather'] })): Promise<Response> =>
    fetch(`${learnUrl}/apply`, { method: 'POST', headers, body });
  const code = async (response: Response): Promise<[number, string]> => [response.status, ((await response.json()) as { error: { data: { code: string } } }).error.data.code];

  expect(await code(await apply({ 'content-type': 'application/json' }))).toEqual([403, 'RETROFIT_ERR_UI_CSRF']);
  expect(await code(await apply({ 'content-type': 'application/json', 'x-retrofit-csrf': 'guess' }))).toEqual([403, 'RETROFIT_ERR_UI_CSRF']);
  expect(await code(await apply({ 'content-type': 'text/plain', 'x-retrofit-csrf': csrf }))).toEqual([415, 'RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE']);
  expect(await code(await apply({ 'content-type': 'application/json', 'x-retrofit-csrf': csrf, origin: 'http://evil.example' }))).toEqual([403, 'RETROFIT_ERR_FORBIDDEN_ORIGIN']);
  expect(await code(await apply({ 'content-type': 'application/json', 'x-retrofit-csrf': csrf }, JSON.stringify({ tools: ['never_recorded'] })))).toEqual([404, 'RETROFIT_ERR_UI_NOT_FOUND']);
  expect(readFileSync(gw.file, 'utf8')).toBe(before);

  const applied = await apply({ 'content-type': 'application/json', 'x-retrofit-csrf': csrf, origin: gw.origin });
  expect(applied.status).toBe(200);
  expect(await applied.json()).toEqual({ written: gw.file, backup: `${gw.file}.bak`, tools: ['get_weather'], reload: { ok: true } });
  expect(readFileSync(`${gw.file}.bak`, 'utf8')).toBe(before);
  const after = readFileSync(gw.file, 'utf8');
  expect(after).toContain('# kept through apply');
  expect(after).toContain('# learn from these');
  expect(parse(after).upstreams.weather.tools.get_weather).toEqual(weather.proposal);

  // The next client is listed the learned schema, and the Learn page now shows it running.
  expect((await listed(gw)).find((t) => t.name === 'get_weather')?.outputSchema).toEqual(weather.proposal!.outputSchema);
  const relearned = (await (await fetch(learnUrl)).json()) as LearnBody;
  expect(relearned.tools.find((t) => t.tool === 'get_weather')?.running).toEqual({ extract: { format: 'json' }, outputSchema: weather.proposal!.outputSchema });

  // A second apply keeps the first backup as .bak.1.
  expect((await apply({ 'content-type': 'application/json', 'x-retrofit-csrf': csrf })).status).toBe(200);
  expect(existsSync(`${gw.file}.bak.1`)).toBe(true);

  // A file that would not pass check is not written: every problem is named with its place.
  gw.write(`${after}limits: { maxRequestBytes: many }\n`);
  const broken = readFileSync(gw.file, 'utf8');
  const rejected = await apply({ 'content-type': 'application/json', 'x-retrofit-csrf': csrf });
  expect(rejected.status).toBe(409);
  const body = (await rejected.json()) as { error: { data: { code: string; problems: string[] } } };
  expect(body.error.data.code).toBe('RETROFIT_ERR_UI_APPLY_REJECTED');
  expect(body.error.data.problems).toHaveLength(1);
  expect(body.error.data.problems[0]).toMatch(/^.+:\d+:\d+ limits\.maxRequestBytes/);
  expect(body.error.data.problems[0]?.startsWith(`${gw.file}:`)).toBe(true);
  expect(readFileSync(gw.file, 'utf8')).toBe(broken);
});
