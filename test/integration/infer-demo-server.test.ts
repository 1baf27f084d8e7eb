/**
 * `mcp-retrofit infer` against the bundled demo server (src/demo/server.ts, a real stdio MCP server that
 * answers in text only): `--call` spawns it, calls each tool and prints a tools: block; the same results
 * recorded by the recorder and read back with `--from` give the same entries; and the printed block, put
 * in the demo config in place of its hand-written tools, passes check and turns every answer into valid
 * structuredContent for 2025-11-25 and 2026-07-28 clients.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { beforeAll, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { run as check } from '../../src/cli/check.js';
import { callUpstream, parseCalls } from '../../src/cli/infer-call.js';
import { run as infer } from '../../src/cli/infer.js';
import { loadConfig } from '../../src/config/load.js';
import { isJsonObject } from '../../src/json.js';
import { createMetrics } from '../../src/metrics.js';
import { createRecorder } from '../../src/record/index.js';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { tempFiles } from '../unit/config/helpers.js';
import { REPO } from '../helpers/stdio-gateway.js';
import { textSink } from '../helpers/cli.js';

const DEMO = resolve(REPO, 'dist/demo/server.js');
const CALLS = `
- { tool: get_temperature, arguments: { city: Paris } }
- { tool: get_temperature, arguments: { city: Lisbon } }
- { tool: get_weather, arguments: { city: Paris } }
- { tool: get_weather, arguments: { city: Zurich } }
- { tool: get_weather, arguments: { city: Atlantis } }
- { tool: get_forecast_summary, arguments: { city: Paris } }
- { tool: get_forecast_summary, arguments: { city: Lisbon, days: 5 } }
- { tool: list_cities }
- { tool: get_station_report, arguments: { city: Zurich } }
- { tool: get_station_report, arguments: { city: Lisbon } }
`;
const config = (tools = '', record = ''): string => `upstreams:\n  weather:\n    command: node\n    args: [${JSON.stringify(DEMO)}]\n${record}${tools}`;

async function cli(main: typeof infer, args: string[]) {
  const stdout = textSink();
  const stderr = textSink();
  const code = await main(args, { stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

beforeAll(async () => {
  // `npm test` builds first; a lone run of this file builds here.
  if (!existsSync(DEMO)) await promisify(execFile)(process.execPath, [resolve(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO });
});

it('infers a working config from the demo server, by calling it and from recordings', async () => {
  const dir = await tempFiles({ 'gateway.yaml': config('', '    record: { dir: rec }\n'), 'calls.yaml': CALLS });
  const file = join(dir, 'gateway.yaml');

  const called = await cli(infer, ['--config', file, '--call', join(dir, 'calls.yaml')]);
  expect(called.code).toBe(0);
  expect(called.stderr).toBe('infer: 5 tools, 5 with an entry, from 10 results\n');
  const { tools } = parse(called.stdout) as { tools: Record<string, { extract?: { format: string }; outputSchema: Record<string, unknown> }> };
  expect(Object.fromEntries(Object.entries(tools).map(([name, t]) => [name, t.extract?.format]))).toEqual({
    get_forecast_summary: 'auto',
    get_station_report: 'yaml',
    get_temperature: 'json',
    get_weather: 'json',
    list_cities: 'json',
  });
  expect(tools.get_temperature?.outputSchema).toEqual({ type: 'integer' });
  expect(tools.list_cities?.outputSchema).toEqual({ type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, country: { type: 'string' } }, required: ['name', 'country'] } });
  expect(called.stdout).toContain('# get_weather: 2 samples, read as json\n  # 1 error or unfinished result ignored\n');

  // The same answers, recorded as the gateway will record them, then read back from record.dir.
  const loaded = await loadConfig(file);
  const upstream = loaded.config.upstreams.weather!;
  const calls = parseCalls(CALLS);
  if (typeof calls === 'string') throw new Error(calls);
  const answers = await callUpstream(upstream, loaded.config, calls, 10_000);
  const recorder = createRecorder(loaded.config, createMetrics({ defaultMetrics: false }), pino({ level: 'silent' }));
  for (const [i, sample] of answers.samples.entries()) recorder.offer({ upstream: 'weather', tool: sample.tool, result: sample.result, arguments: calls[i]!.arguments, revision: '2025-11-25' });
  await recorder.close();
  const recorded = await cli(infer, ['--config', file]);
  expect(recorded.code).toBe(0);
  // The city names were arguments: scrubbed from the recordings, they are still strings.
  expect(parse(recorded.stdout)).toEqual({ tools });

  // Recordings teach, fresh calls check: every entry holds on the calls made now, so none is withdrawn.
  const checkedFresh = await cli(infer, ['--config', file, '--from', join(dir, 'rec'), '--call', join(dir, 'calls.yaml')]);
  expect(checkedFresh.code).toBe(0);
  expect(parse(checkedFresh.stdout)).toEqual({ tools });
  expect(checkedFresh.stdout).toContain('# Every entry checked against 10 fresh results from 10 calls in');
  expect(checkedFresh.stdout).toContain('  # verified on 2 fresh calls too\n  # 1 fresh call answered with an error: not a check\n  get_weather:\n');
  expect(checkedFresh.stdout.match(/# verified on \d fresh calls? too/g)).toHaveLength(5);

  // Pasted into the demo config: check passes, and every answer becomes valid structuredContent.
  await writeFile(file, config(stringify({ tools }).replace(/^/gm, '    ')));
  const checked = await cli(check, ['--config', file]);
  expect(checked).toEqual({ code: 0, stdout: 'ok\n', stderr: '' });
  const policy = (await loadConfig(file)).policies.get('weather')!;
  for (const sample of answers.samples) {
    if (sample.result.isError === true) continue;
    for (const revision of ['2025-11-25', '2026-07-28']) {
      const { result, outcome } = rewriteToolCall(sample.result, sample.tool, policy, revision);
      expect([sample.source, revision, outcome.outcome]).toEqual([sample.source, revision, 'extracted']);
      if (revision === '2025-11-25') expect(isJsonObject(result.structuredContent)).toBe(true);
    }
  }
});

it('says why when the upstream cannot be spawned', async () => {
  const dir = await tempFiles({ 'gateway.yaml': 'upstreams:\n  weather:\n    command: /nonexistent/server\n', 'calls.yaml': CALLS });
  const r = await cli(infer, ['--config', join(dir, 'gateway.yaml'), '--call', join(dir, 'calls.yaml')]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/^infer: upstream "weather" \(command \/nonexistent\/server\) is unreachable: /);
});
