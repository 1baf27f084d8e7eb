/**
 * Scenario 2a — retrofit cost, in-process: the built engine's rewriteToolCall on text results of 1 KB,
 * 100 KB and 10 MB in the four shapes `auto` handles (whole JSON, fenced, embedded in prose, several blocks),
 * against the floor: JSON.parse of the same JSON plus one validate with an ajv compiled the same way.
 * Floor and retrofit alternate batch by batch so noise hits both; medians are reported.
 * Also issue 23's small answer (scenario 1's ~200-byte text) through the whole session path, in process: a
 * SessionState registers the tools/call, the answer's bytes go through `inbound` (parse, settle, extract,
 * validate, serialise) and become the bytes sent; against its floor, the JSON work no gateway can skip
 * (JSON.parse of the answer and of its text, one validate, JSON.stringify of the new answer, its bytes).
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import addFormatsModule from 'ajv-formats';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OBJECT_SCHEMA, shapes, SMALL_TEXT } from '../lib/data.js';
import { ROOT } from '../lib/servers.js';
import { median } from '../lib/sys.js';
import { fmt, row } from '../lib/table.js';

const addFormats = addFormatsModule.default ?? addFormatsModule;
const SIZES = [
  ['1 KB', 1024],
  ['100 KB', 100 * 1024],
  ['10 MB', 10 * 1024 * 1024],
];

/** ms per call of `fn`, over a batch of `n` calls. */
function timeBatch(fn, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return (performance.now() - t0) / n;
}

/**
 * Median ms per call of `floor` and of `ours`, timed in alternating batches of `reps`. Both first run `warm`
 * times (the JIT settles; the callers have run `ours` once already, its outcome check). A batch lasts about
 * `minMs`, sized from a probe of 100 calls (one call of a few microseconds cannot be timed alone); with
 * `minMs` 1 (big inputs) each call is timed alone.
 */
function measurePair(floor, ours, { reps, minMs, warm = 0 }) {
  for (let i = 0; i < warm; i++) {
    floor();
    ours();
  }
  floor();
  const n = minMs <= 1 ? 1 : Math.max(1, Math.ceil(minMs / Math.max(0.0001, timeBatch(ours, 100))));
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
  // First, while the engine has seen no other shape (as in scenario 1, where the gateway sees only this one).
  const rows = [await smallAnswer({ dist, compileUpstreamPolicy, DEFAULTS, ajv, quick, log })];
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

/**
 * Issue 23's "the retrofit of a 200-byte result should cost little more than its parse and validation", without
 * the HTTP around it (scenario 1 measures that, within the noise of whole exchanges): the session path of one
 * small answer against the JSON operations it cannot avoid.
 */
async function smallAnswer({ dist, compileUpstreamPolicy, DEFAULTS, ajv, quick, log }) {
  const { createRewriter } = await import(dist('pipeline/rewrite.js'));
  const { createMetrics } = await import(dist('metrics.js'));
  const { SessionState } = await import(dist('session/state.js'));
  const { classifyBody } = await import(dist('jsonrpc/classify.js'));
  const { inbound } = await import(dist('session/inbound.js'));
  const { createLogger } = await import(dist('log.js'));
  const upstream = { kind: 'http', name: 'bench', path: '/bench/mcp', timeoutMs: 1000, url: 'http://127.0.0.1:1/mcp', headers: {}, tools: { echo: { outputSchema: OBJECT_SCHEMA, extract: { format: 'auto' } } } };
  const { policy, errors } = compileUpstreamPolicy(upstream, DEFAULTS);
  if (errors.length) throw new Error(`policy: ${JSON.stringify(errors)}`);
  const rewriter = createRewriter(createMetrics({ defaultMetrics: false }), { pool: false, isolatePool: false });
  const logger = createLogger({ level: 'silent' });
  const request = classifyBody(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}')).messages[0];
  const answer = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: SMALL_TEXT }] } }));
  const validate = ajv.compile(OBJECT_SCHEMA);
  const ours = () => {
    const state = new SessionState({ upstream: 'bench', bridge: false });
    state.expect(request, { header: '2025-06-18', policy });
    const out = inbound(state, rewriter, answer, logger);
    if (out.out === undefined) throw new Error('the small answer was not retrofitted');
    return Buffer.from(out.out);
  };
  const floor = () => {
    const message = JSON.parse(answer.toString('utf8'));
    const value = JSON.parse(message.result.content[0].text);
    if (!validate(value)) throw new Error('floor data invalid');
    message.result.structuredContent = value;
    return Buffer.from(JSON.stringify(message));
  };
  if (ours().length !== floor().length) throw new Error('the session path and its floor serialise different answers');
  // Microseconds per call: batches of thousands of calls, after the JIT has settled on both.
  const m = measurePair(floor, ours, { reps: quick ? 5 : 15, minMs: 25, warm: 5000 });
  log(`  s2 small answer: floor ${fmt(m.floor * 1000)} µs, session path ${fmt(m.ours * 1000)} µs`);
  return row(
    `2 small tools/call answer (${answer.length} bytes, a ${SMALL_TEXT.length}-byte JSON text) through the session, in process, vs its JSON floor (2× JSON.parse, validate, JSON.stringify)`,
    `${fmt(m.floor * 1000)} µs`,
    `${fmt(m.ours * 1000)} µs`,
    m.ours / m.floor,
  );
}
