/**
 * Scenario 9 — client profiles (issue 26), in-process on the built engine: a tools/list of 50 tools with
 * draft-07 schemas (definitions, tuple items, an anyOf input root) and a small tools/call result, served to a
 * client without a profile and to one whose profile rewrites everything it can (schemaDialect 2020-12,
 * inputSchemaRoot object, textFallback). The rewrites are remembered per schema text, so after the first
 * listing a profiled tools/list costs the lookups, not the rewrites. Unprofiled and profiled alternate batch
 * by batch so noise hits both; medians are reported.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib/servers.js';
import { median } from '../lib/sys.js';
import { fmt, row } from '../lib/table.js';

const D7 = 'http://json-schema.org/draft-07/schema#';

function toolsList(n) {
  const tools = [];
  for (let i = 0; i < n; i++) {
    tools.push({
      name: `tool_${i}`,
      description: `tool number ${i}`,
      inputSchema: { $schema: D7, anyOf: [{ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }] },
      outputSchema: {
        $schema: D7,
        type: 'object',
        definitions: { item: { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } }, required: ['name'] } },
        properties: { items: { type: 'array', items: { $ref: '#/definitions/item' } }, pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false }, [`k${i}`]: { type: 'string' } },
        required: ['items'],
      },
    });
  }
  return { tools };
}

function timeBatch(fn, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return (performance.now() - t0) / n;
}

function pair(plain, profiled, { reps, n }) {
  plain();
  profiled();
  const a = [];
  const b = [];
  for (let i = 0; i < reps; i++) {
    a.push(timeBatch(plain, n));
    b.push(timeBatch(profiled, n));
  }
  return { plain: median(a), profiled: median(b) };
}

export async function profiles({ quick, log }) {
  const dist = (p) => pathToFileURL(join(ROOT, 'dist', p)).href;
  const { rewriteToolCall, rewriteToolsList } = await import(dist('retrofit/engine.js'));
  const { compileUpstreamPolicy } = await import(dist('policy/compile.js'));
  const { DEFAULTS } = await import(dist('config/types.js'));
  const upstream = { kind: 'http', name: 'bench', path: '/bench/mcp', timeoutMs: 1000, url: 'http://127.0.0.1:1/mcp', headers: {}, tools: { weather: { extract: { format: 'json' }, outputSchema: { type: 'object', properties: { city: { type: 'string' }, t: { type: 'integer' } }, required: ['city', 't'] } } } };
  const { policy, errors } = compileUpstreamPolicy(upstream, DEFAULTS);
  if (errors.length) throw new Error(`policy: ${JSON.stringify(errors)}`);
  const profile = { name: 'all', outputSchema: 'keep', schemaDialect: '2020-12', textFallback: true, inputSchemaRoot: 'object' };
  const revision = '2025-11-25';
  const opts = quick ? { reps: 5, n: 20 } : { reps: 15, n: 50 };

  // Each call gets the list as a fresh parse would give it: a new object every time, as off the wire.
  const text = JSON.stringify(toolsList(50));
  const first = rewriteToolsList(JSON.parse(text), policy, revision, profile).result;
  if (!first.tools.every((t) => t.outputSchema.$schema === 'https://json-schema.org/draft/2020-12/schema' && t.inputSchema.type === 'object' && t.inputSchema.anyOf === undefined)) throw new Error('profiled list not rewritten');
  const list = pair(() => rewriteToolsList(JSON.parse(text), policy, revision), () => rewriteToolsList(JSON.parse(text), policy, revision, profile), opts);
  log(`  s9 tools/list (50 tools): ${fmt(list.plain)} ms unprofiled, ${fmt(list.profiled)} ms profiled`);

  const result = { content: [{ type: 'text', text: 'Weather: {"city":"Paris","t":17}' }] };
  const called = rewriteToolCall(result, 'weather', policy, revision, profile);
  if (called.result.content.length !== 2) throw new Error('textFallback not applied');
  const call = pair(() => rewriteToolCall(result, 'weather', policy, revision), () => rewriteToolCall(result, 'weather', policy, revision, profile), { reps: opts.reps, n: opts.n * 20 });
  log(`  s9 tools/call (small, text fallback): ${fmt(call.plain * 1000)} µs unprofiled, ${fmt(call.profiled * 1000)} µs profiled`);
  return [
    row('9 tools/list of 50 draft-07 tools: profiled (2020-12, object roots) vs unprofiled, parse included', `${fmt(list.plain)} ms`, `${fmt(list.profiled)} ms`, list.profiled / list.plain, { max: 2, note: '(rewrites remembered; each schema is serialised to find its rewrite)' }),
    row('9 tools/call, small retrofitted result: profiled (textFallback) vs unprofiled', `${fmt(call.plain * 1000)} µs`, `${fmt(call.profiled * 1000)} µs`, call.profiled / call.plain, { max: 1.5 }),
  ];
}
