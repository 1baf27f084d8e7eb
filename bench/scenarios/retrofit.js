/**
 * Scenario 2a — retrofit cost, in-process: the built engine's rewriteToolCall on text results of 1 KB,
 * 100 KB and 10 MB in the four shapes `auto` handles (whole JSON, fenced, embedded in prose, several blocks),
 * against the floor: JSON.parse of the same JSON plus one validate with an ajv compiled the same way.
 * Floor and retrofit alternate batch by batch so noise hits both; medians are reported.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import addFormatsModule from 'ajv-formats';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { shapes } from '../lib/data.js';
import { ROOT } from '../lib/servers.js';
import { median } from '../lib/sys.js';
import { fmt, row } from '../lib/table.js';

const addFormats = addFormatsModule.default ?? addFormatsModule;
const SIZES = [
  ['1 KB', 1024],
  ['100 KB', 100 * 1024],
  ['10 MB', 10 * 1024 * 1024],
];

/** ms per call of `fn`, over a batch big enough to be timed (at least `minMs`). */
function timeBatch(fn, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return (performance.now() - t0) / n;
}

function measurePair(floor, ours, { reps, minMs }) {
  // The caller has run `ours` once (its outcome check), which warms it. Size a batch from one more call
  // so tiny inputs are timed over many calls; big inputs (minMs 1) are timed one call at a time.
  floor();
  const n = minMs <= 1 ? 1 : Math.max(1, Math.ceil(minMs / Math.max(0.001, timeBatch(ours, 1))));
  const f = [];
  const o = [];
  for (let i = 0; i < reps; i++) {
    f.push(timeBatch(floor, n));
    o.push(timeBatch(ours, n));
  }
  return { floor: median(f), ours: median(o) };
}

export async function retrofitCost({ quick, log }) {
  const dist = (p) => pathToFileURL(join(ROOT, 'dist', p)).href;
  const { rewriteToolCall } = await import(dist('retrofit/engine.js'));
  const { compileUpstreamPolicy } = await import(dist('policy/compile.js'));
  const { DEFAULTS } = await import(dist('config/types.js'));
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
  addFormats(ajv);
  const rows = [];
  for (const [label, bytes] of SIZES) {
    const big = bytes >= 1024 * 1024;
    const opts = quick ? { reps: big ? 1 : 5, minMs: big ? 1 : 20 } : { reps: big ? 5 : 15, minMs: big ? 1 : 50 };
    for (const [shape, s] of Object.entries(shapes(bytes))) {
      // --quick: at 10 MB only the whole-JSON shape (each call takes a second or more).
      if (quick && big && shape !== 'whole') continue;
      const upstream = { kind: 'http', name: 'bench', path: '/bench/mcp', timeoutMs: 1000, url: 'http://127.0.0.1:1/mcp', headers: {}, tools: { t: { outputSchema: s.schema, extract: { format: 'auto' } } } };
      const { policy, errors } = compileUpstreamPolicy(upstream, DEFAULTS);
      if (errors.length) throw new Error(`policy: ${JSON.stringify(errors)}`);
      const validate = ajv.compile(s.schema);
      const floor = s.array
        ? () => {
            if (!validate(s.floorTexts.map((t) => JSON.parse(t)))) throw new Error('floor data invalid');
          }
        : () => {
            if (!validate(JSON.parse(s.floorTexts[0]))) throw new Error('floor data invalid');
          };
      const ours = () => rewriteToolCall({ content: s.content }, 't', policy, '2025-11-25');
      const check = ours();
      if (check.outcome.outcome !== 'extracted') {
        rows.push(row(`2 retrofit ${label} ${shape}`, 'floor ok', `engine outcome ${check.outcome.outcome} (${(check.outcome.reasons ?? []).join('; ').slice(0, 120)})`, NaN, label === '100 KB' ? { max: 2 } : undefined));
        continue;
      }
      const m = measurePair(floor, ours, opts);
      log(`  s2 ${label} ${shape}: floor ${fmt(m.floor)} ms, retrofit ${fmt(m.ours)} ms (${check.outcome.format})`);
      rows.push(
        row(
          `2 retrofit ${label} ${shape === 'prose' ? 'embedded in prose' : shape === 'blocks' ? 'several blocks' : shape} (${check.outcome.format}) vs JSON.parse+validate`,
          `${fmt(m.floor)} ms`,
          `${fmt(m.ours)} ms`,
          m.ours / m.floor,
          label === '100 KB' ? { max: 2 } : undefined,
        ),
      );
    }
  }
  return rows;
}
