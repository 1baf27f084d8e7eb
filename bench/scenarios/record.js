/**
 * Scenario 6 — recording under load: 1,000 small tools/call (4 tools, 4 callers × 250 back to back) through
 * two gateways in front of the same raw upstream, one without `record:` and one with
 * `record: {maxPerTool: 20}`, in the same rounds (order alternating), latency measured per call by the
 * callers. The ratio is the median over rounds of each round's p50 with ÷ without: the two runs of a round
 * are seconds apart, so the load others put on a shared machine moves both alike. Reported besides: the
 * medians of p50 and p99, the files per tool directory (bounded by
 * maxPerTool) and what the recording gateway's /metrics counted once its recorder drained (recorded, dropped
 * by reason: every result is one or the other).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { OBJECT_SCHEMA } from '../lib/data.js';
import { MCP_HEADERS } from '../lib/load.js';
import { scratch, startGateway, startUpstream } from '../lib/servers.js';
import { median, percentile, until } from '../lib/sys.js';
import { fmt, ratio, row } from '../lib/table.js';

const TOOLS = ['echo_a', 'echo_b', 'echo_c', 'echo_d'];
const CALLS = 1000;
const CALLERS = 4;
const MAX_PER_TOOL = 20;

/** `calls` tools/call POSTs from `callers` concurrent loops; resolves the latencies (ms) and the failures. */
async function load(url, calls, callers) {
  const latencies = [];
  let failures = 0;
  let next = 0;
  const caller = async () => {
    while (next < calls) {
      const n = next++;
      const body = JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: TOOLS[n % TOOLS.length], arguments: { n } } });
      const t0 = performance.now();
      const res = await fetch(url, { method: 'POST', headers: MCP_HEADERS, body });
      const text = await res.text();
      latencies.push(performance.now() - t0);
      if (res.status !== 200 || !text.includes('"structuredContent"')) failures++;
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures };
}

/** `name{labels} value` lines of one metric, summed by the label `by`. */
function counted(text, name, by) {
  const out = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const key = new RegExp(`${by}="([^"]*)"`).exec(line)?.[1] ?? '';
    out[key] = (out[key] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return out;
}

export async function recording({ quick, log }) {
  const rounds = quick ? 2 : 7;
  const raw = await startUpstream('raw-upstream');
  const dir = scratch('mcp-retrofit-rec-');
  const upstream = (record) => ({ raw: { url: `${raw.url}/json/mcp`, path: '/raw/mcp', tools: { 'echo_*': { outputSchema: OBJECT_SCHEMA } }, ...(record && { record }) } });
  const plain = await startGateway(upstream());
  const rec = await startGateway(upstream({ dir, maxPerTool: MAX_PER_TOOL }));
  try {
    const targets = [
      ['without record', `${plain.address}/raw/mcp`],
      ['with record', `${rec.address}/raw/mcp`],
    ];
    // Warm-up: JIT, connections, the recorder's first directories.
    for (const [, url] of targets) await load(url, quick ? 100 : 300, CALLERS);
    const runs = { 'without record': [], 'with record': [] };
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        const [name, url] = targets[(i + round) % targets.length];
        const r = await load(url, CALLS, CALLERS);
        log(`  s6 ${name} round ${round + 1}: p50 ${fmt(r.p50)} ms p99 ${fmt(r.p99)} ms, ${r.failures} not retrofitted`);
        runs[name].push(r);
      }
    }
    const summary = (rs) => ({ p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)), failures: rs.reduce((n, r) => n + r.failures, 0) });
    const without = summary(runs['without record']);
    const withRec = summary(runs['with record']);
    const paired = median(runs['with record'].map((r, i) => ratio(r.p50, runs['without record'][i].p50)));
    // The recorder writes in the background: wait until every result is written or counted as dropped.
    const calls = CALLS * rounds + (quick ? 100 : 300);
    let recorded = 0;
    let drops = {};
    await until(async () => {
      const metrics = await (await fetch(`${rec.address}/metrics`)).text();
      recorded = counted(metrics, 'mcp_retrofit_recorded_results_total', 'upstream').raw ?? 0;
      drops = counted(metrics, 'mcp_retrofit_record_drops_total', 'reason');
      return recorded + Object.values(drops).reduce((a, b) => a + b, 0) >= calls;
    }, 30_000, 'the recorder to drain');
    const files = readdirSync(join(dir, 'raw')).map((tool) => readdirSync(join(dir, 'raw', tool)).filter((f) => f.endsWith('.json')).length);
    const dropText = Object.keys(drops).length === 0 ? 'none dropped' : Object.entries(drops).map(([k, v]) => `${v} ${k}`).join(', ');
    log(`  s6 files per tool ${files.join(', ')} (max ${MAX_PER_TOOL}); recorded ${recorded} of ${calls}; ${dropText}`);
    const show = (s) => `p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms${s.failures ? `, ${s.failures} not retrofitted` : ''}`;
    return [
      row(
        `6 recording under load: ${CALLS} small tools/call × ${rounds} rounds (${CALLERS} callers), p50 with \`record:\` vs without (median of the rounds' ratios); files per tool ${Math.max(...files)} (max ${MAX_PER_TOOL}), ${recorded} of ${calls} results recorded, ${dropText}`,
        `without record ${show(without)}`,
        `with record ${show(withRec)}`,
        paired,
        { max: 1.1, note: '(no added latency beyond noise)' },
      ),
    ];
  } finally {
    await rec.stop();
    await plain.stop();
    await raw.stop();
  }
}
