/**
 * Scenario 2b — does a 10 MB retrofit stall other sessions? In the gateway process: small tools/call
 * latency (autocannon) alone, then while a separate client keeps a 10 MB JSON retrofit running back to back.
 */
import { join } from 'node:path';
import { OBJECT_SCHEMA } from '../lib/data.js';
import { autocannon, toolCall } from '../lib/load.js';
import { runToEnd, start } from '../lib/procs.js';
import { ROOT, startGateway, startUpstream } from '../lib/servers.js';
import { median } from '../lib/sys.js';
import { fmt, row } from '../lib/table.js';

export async function stall({ quick, log }) {
  const seconds = quick ? 2 : 10;
  const raw = await startUpstream('raw-upstream');
  const tools = { echo: { outputSchema: OBJECT_SCHEMA }, big: { outputSchema: OBJECT_SCHEMA } };
  const gw = await startGateway({ raw: { url: `${raw.url}/json/mcp`, path: '/raw/mcp', tools } });
  const url = `${gw.address}/raw/mcp`;
  const body = toolCall('echo');
  let caller;
  try {
    if (!quick) await autocannon(url, { body, connections: 4, seconds: 1 });
    const alone = await autocannon(url, { body, connections: 4, seconds });
    caller = start(process.execPath, [join(ROOT, 'bench', 'lib', 'caller.js'), url, 'big']);
    // Measure only once the first 10 MB call has completed, so the load overlaps steady big calls.
    // Full: measure once the first big call is done, over two big calls' worth, so calls stalled behind one
    // still complete inside the window. --quick: start with the first big call and measure 6 s.
    let duringSeconds = 6;
    if (!quick) {
      const first = await caller.waitFor(/^took ([\d.]+)/, 60_000);
      duringSeconds = Math.max(seconds, Math.ceil((2 * Number(first[1])) / 1000) + 1);
    } else await caller.waitFor(/^ready/, 10_000);
    const during = await autocannon(url, { body, connections: 4, seconds: duringSeconds });
    await caller.stop();
    const bigCalls = caller.lines.filter((l) => l.startsWith('took ')).map((l) => l.split(' '));
    const bigMs = median(bigCalls.map((p) => Number(p[1])));
    const failed = bigCalls.filter((p) => p.length > 3 || p[2] !== '200').length;
    log(`  s2b alone p50 ${alone.p50} p99 ${alone.p99}; during p50 ${during.p50} p99 ${during.p99}; big calls ${bigCalls.length}, median ${fmt(bigMs)} ms, ${failed} not retrofitted`);
    const show = (r) => `p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, max ${fmt(r.max)} ms, ${fmt(r.rps)} req/s`;
    return [
      row(
        `2 small calls while 10 MB retrofits run in the same gateway (${bigCalls.length} big calls, median ${fmt(bigMs)} ms each${failed ? `, ${failed} not retrofitted` : ''}): p99 vs alone`,
        `alone ${show(alone)}`,
        `during (${duringSeconds} s) ${show(during)}`,
        during.p99 / Math.max(alone.p99, 1),
      ),
    ];
  } finally {
    await caller?.stop();
    await gw.stop();
    await raw.stop();
  }
}

/** A pattern RE2 cannot run (a lookahead), so the tool is isolated; on 40 `x`s it backtracks exponentially. */
export const CATASTROPHIC = '(?<a>(x+x+)+y)(?=$)';

async function sessionLoad(url, sessions, seconds) {
  const out = await runToEnd(process.execPath, [join(ROOT, 'bench', 'lib', 'session-load.js'), url, String(sessions), String(seconds), 'echo', '{}'], { timeoutMs: (seconds + 60) * 1000 });
  return JSON.parse(out.trim().split('\n').pop());
}

/**
 * Scenario 2c (issue 13) — event-loop delay under catastrophic patterns: one client keeps 4 calls at a time of a
 * tool whose extraction pattern RE2 cannot run (it runs on the pipeline's isolation worker, under its 100 ms
 * deadline) on a text of 40 `x`s, while another session makes small calls to a plain tool, one at a time.
 * The small calls' latency, measured by the client, is the gateway's event-loop delay as a client feels it.
 * With --compare, the same for the other build.
 */
export async function regexStall({ quick, log, compare }) {
  const seconds = quick ? 2 : 8;
  const raw = await startUpstream('raw-upstream');
  const tools = { xs: { outputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, extract: { format: 'regex', pattern: CATASTROPHIC } } };
  const builds = [['mcp-retrofit', ROOT], ...(compare ? [[compare.label, compare.root]] : [])];
  const rows = [];
  try {
    for (const [label, root] of builds) {
      const gw = await startGateway({ raw: { url: `${raw.url}/json/mcp`, path: '/raw/mcp', tools } }, { root });
      let caller;
      try {
        const url = `${gw.address}/raw/mcp`;
        if (!quick) await sessionLoad(url, 1, 1);
        const alone = await sessionLoad(url, 1, seconds);
        caller = start(process.execPath, [join(ROOT, 'bench', 'lib', 'caller.js'), url, 'xs', '4']);
        // Measure once the first catastrophic call has come back: the worker is busy from then on.
        await caller.waitFor(/^took /, 60_000);
        const during = await sessionLoad(url, 1, seconds);
        await caller.stop();
        const calls = caller.lines.filter((l) => l.startsWith('took ')).map((l) => Number(l.split(' ')[1]));
        const show = (r) => `p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, max ${fmt(r.max)} ms, ${fmt(r.rps)} req/s`;
        log(`  s2c ${label}: alone ${show(alone)}; during ${show(during)}; ${calls.length} catastrophic calls, median ${fmt(median(calls))} ms`);
        rows.push(
          row(
            `2 small calls while another client runs 4 catastrophic-pattern calls at a time (${CATASTROPHIC} on 40 x's; ${calls.length} calls, median ${fmt(median(calls))} ms): ${label}, p99 during vs alone`,
            `alone ${show(alone)}`,
            `during ${show(during)}`,
            during.p99 / alone.p99,
          ),
        );
      } finally {
        await caller?.stop();
        await gw.stop();
      }
    }
  } finally {
    await raw.stop();
  }
  return rows;
}
