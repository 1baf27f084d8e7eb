/**
 * What infer prints is a working config: pasted under an upstream it passes `check`, and every sample it was
 * inferred from, run through the engine entry `try` uses (rewriteToolCall), gives structuredContent that
 * matches the outputSchema the same client sees in tools/list, for 2025-11-25 (object roots; others wrapped)
 * and 2026-07-28 (any root).
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run as check } from '../../../src/cli/check.js';
import { loadConfig } from '../../../src/config/load.js';
import { byTool, inferUpstream, VERIFIED_REVISIONS } from '../../../src/infer/index.js';
import { isJsonObject, type JsonObject } from '../../../src/json.js';
import { rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import { check as validate, compileSchema } from '../../../src/retrofit/validate.js';
import { tempFiles } from '../config/helpers.js';

const text = (...texts: string[]): JsonObject => ({ content: texts.map((t) => ({ type: 'text', text: t })) });
const CONDITIONS = ['sunny', 'cloudy', 'rain'];

/** Samples of every shape infer reads, 24 of the weather tool so its enum and formats are inferred. */
function corpus(): { tool: string; result: JsonObject; source: string }[] {
  const out: { tool: string; result: JsonObject }[] = [];
  for (let i = 0; i < 24; i++) {
    const weather = { city: `c${i}`, temperature: i % 2 ? i : i + 0.5, conditions: CONDITIONS[i % 3], at: `2026-01-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`, ...(i % 4 ? { link: `https://example.org/${i}` } : {}) };
    out.push({ tool: 'get_weather', result: text(JSON.stringify(weather)) });
  }
  out.push(
    { tool: 'get_temperature', result: text('17') },
    { tool: 'get_temperature', result: text('-3') },
    { tool: 'forecast', result: text('Here is the forecast: {"days":[{"day":1,"high":19}]} Have a nice day.') },
    { tool: 'forecast', result: text('Forecast: {"days":[]}') },
    { tool: 'fenced', result: text('Result:\n```json\n{"ok": true}\n```') },
    { tool: 'list_cities', result: text('{"name":"Paris"}', '{"name":"Zurich"}') },
    { tool: 'list_cities', result: text('{"name":"Lisbon"}') },
    { tool: 'python', result: text("{'id': 1, 'tags': ['a'], 'ok': True}") },
    { tool: 'python', result: text("{'id': 2, 'tags': [], 'ok': None}") },
    { tool: 'station_report', result: text('station: LFPG\nstatus: online\ntemperature_c: 17\nhumidity: 0.62') },
    { tool: 'station_report', result: text('station: LSZH\nstatus: offline\ntemperature_c: 11.5') },
    { tool: 'native', result: { ...text('{"n":1}'), structuredContent: { n: 1 } } },
    { tool: 'mixed roots', result: text('[1, "two", null]') },
    { tool: 'mixed roots', result: text('{"k": [true]}') },
    { tool: 'say_hello', result: text('Hello! Nice to meet you.') },
  );
  return out.map((s, i) => ({ ...s, source: `sample ${i}` }));
}

/** The outputSchema a client of `revision` sees for `tool` in tools/list. */
function served(tool: string, policy: Parameters<typeof rewriteToolsList>[1], revision: string): unknown {
  const listed = rewriteToolsList({ tools: [{ name: tool, inputSchema: { type: 'object' } }] }, policy, revision).result;
  return ((listed.tools as JsonObject[])[0] as JsonObject).outputSchema;
}

const sink = (): Writable & { text: () => string } => {
  const chunks: string[] = [];
  return Object.assign(new Writable({ write: (c: Buffer, _e, done) => void (chunks.push(c.toString()), done()) }), { text: () => chunks.join('') });
};

describe('infer output', () => {
  const samples = corpus();
  const { yaml, tools } = inferUpstream('weather', byTool(samples), { onInvalid: 'error', legacyRoots: 'wrap', coerce: true }, 'the test corpus');

  it('has an entry for every tool, the prose one a string, with the inferred details', () => {
    expect(tools.filter((t) => !t.entry).map((t) => t.tool)).toEqual([]);
    expect(tools.find((t) => t.tool === 'say_hello')?.entry).toEqual({ outputSchema: { type: 'string' } });
    expect(yaml).toContain('# say_hello: 1 sample of plain prose: proposed as a string (the text as it is)');
    const parsed = parse(yaml) as { tools: Record<string, { extract?: JsonObject; outputSchema: JsonObject }> };
    const weather = parsed.tools.get_weather!.outputSchema as { properties: Record<string, JsonObject>; required: string[] };
    expect(weather.properties.conditions).toEqual({ type: 'string', enum: CONDITIONS });
    expect(weather.properties.at).toEqual({ type: 'string', format: 'date-time' });
    expect(weather.properties.link).toEqual({ type: 'string', format: 'uri' });
    expect(weather.properties.temperature).toEqual({ type: 'number' });
    expect(weather.required).toEqual(['city', 'temperature', 'conditions', 'at']);
    expect(parsed.tools.station_report?.extract).toEqual({ format: 'yaml' });
    expect(parsed.tools['mixed roots']?.outputSchema).toEqual({ type: ['object', 'array'], properties: { k: { type: 'array', items: { type: 'boolean' } } }, required: ['k'], items: { type: ['string', 'integer', 'null'] } });
    expect(tools.every((t) => !t.notes.some((n) => n.startsWith('warning')))).toBe(true);
  });

  it('passes check when pasted under an upstream, and try gives valid structuredContent for every sample and revision', async () => {
    const pasted = yaml.trimEnd().split('\n').map((l) => `    ${l}`).join('\n');
    const dir = await tempFiles({ 'config.yaml': `upstreams:\n  weather:\n    url: http://127.0.0.1:9/mcp\n${pasted}\n` });
    const file = join(dir, 'config.yaml');
    const stdout = sink();
    const stderr = sink();
    expect(await check(['--config', file], { stdout, stderr })).toBe(0);
    expect([stdout.text(), stderr.text()]).toEqual(['ok\n', '']);

    const policy = (await loadConfig(file)).policies.get('weather')!;
    let checked = 0;
    for (const sample of samples.filter((s) => s.tool !== 'say_hello')) {
      for (const revision of VERIFIED_REVISIONS) {
        const { result, outcome } = rewriteToolCall(sample.result, sample.tool, policy, revision);
        expect([sample.source, revision, outcome.outcome]).toEqual([sample.source, revision, sample.tool === 'native' ? 'native' : 'extracted']);
        const schema = served(sample.tool, policy, revision);
        if (revision === '2025-11-25') expect(isJsonObject(result.structuredContent) && isJsonObject(schema) && schema.type === 'object').toBe(true);
        const compiled = compileSchema(schema as JsonObject);
        expect(compiled.ok && validate(compiled.validate, result.structuredContent)).toEqual({ ok: true });
        checked++;
      }
    }
    expect(checked).toBe(2 * (samples.length - 1));
  });
});

describe('learned text is written literally', () => {
  // An upstream's text is not the operator's: `${SECRET}` in what a tool returned must stay those characters
  // in the config, not become a lookup that lists the gateway's environment to every client (review finding).
  const states = ['${SECRET}', '$${SECRET}', 'a$b', '${NOT_SET'];
  const samples = Array.from({ length: 24 }, (_, i) => ({ tool: 'status', result: text(JSON.stringify({ state: states[i % states.length] })), source: `sample ${i}` }));
  const { yaml, tools } = inferUpstream('hostile', byTool(samples), { onInvalid: 'error', legacyRoots: 'wrap', coerce: true }, 'a hostile corpus');

  it('infer prints $${ for ${, and the loaded config holds exactly the learned values', async () => {
    const enumOf = (entry: unknown): unknown => ((entry as { outputSchema: { properties: { state: { enum: unknown } } } }).outputSchema.properties.state.enum);
    expect(enumOf(tools[0]?.entry)).toEqual(states);
    const pasted = yaml.trimEnd().split('\n').map((l) => `    ${l}`).join('\n');
    const dir = await tempFiles({ 'config.yaml': `upstreams:\n  hostile:\n    url: http://127.0.0.1:9/mcp\n${pasted}\n` });
    const loaded = await loadConfig(join(dir, 'config.yaml'), { env: { SECRET: 'leaked' } });
    expect(enumOf(loaded.config.upstreams.hostile!.tools.status)).toEqual(states);
  });

  it('the console apply writes them literally too', async () => {
    const { editConfig } = await import('../../../src/console/apply.js');
    const edited = editConfig('upstreams:\n  hostile:\n    url: http://127.0.0.1:9/mcp\n', 'hostile', new Map([['status', tools[0]!.entry!]]));
    if (!('text' in edited)) throw new Error(edited.problems.join('\n'));
    const dir = await tempFiles({ 'config.yaml': edited.text });
    const loaded = await loadConfig(join(dir, 'config.yaml'), { env: { SECRET: 'leaked' } });
    expect(JSON.stringify(loaded.config.upstreams.hostile!.tools.status)).not.toContain('leaked');
    expect(loaded.config.upstreams.hostile!.tools.status).toMatchObject({ outputSchema: { properties: { state: { enum: states } } } });
  });
});
