/**
 * Scenario 3 — stdio bridging: the same stdio server (server-everything) fronted by mcp-retrofit (a
 * `command:` upstream), supergateway (--stateful streamableHttp) and mcp-proxy (streamable HTTP); the first
 * two give every session its own child, mcp-proxy serves all sessions from one. Same client load for all: bench/lib/session-load.js, N sessions, each
 * initialize once then tools/call echo back to back. Rounds rotate the order; medians reported.
 * CPU per request: the bridge process's own utime+stime (/proc/<pid>/stat, all its threads, not its children —
 * the children are the same server-everything for all three) over the load run, divided by its requests; it
 * is far less sensitive than req/s to other work on the machine. The children's CPU per request is shown
 * beside it: mcp-proxy serves every session from one child started with the bridge (and warmed by the warm-up
 * run), while mcp-retrofit and supergateway start a child per session, so theirs includes 8 cold starts.
 * Env BENCH_ROUNDS / BENCH_SECONDS override the number of rounds and the seconds per load run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBridges, startBridge } from '../lib/bridges.js';
import { runToEnd } from '../lib/procs.js';
import { ROOT, startGateway } from '../lib/servers.js';
import { cpuMs, median } from '../lib/sys.js';
import { fmt, ratio, row, skipped } from '../lib/table.js';

const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

async function load(url, sessions, seconds, revision = '2025-06-18') {
  const out = await runToEnd(process.execPath, [join(ROOT, 'bench', 'lib', 'session-load.js'), url, String(sessions), String(seconds), 'echo', '{"message":"hi"}', revision], {
    timeoutMs: (seconds + 60) * 1000,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

/** CPU ms used so far by each descendant of `root` (children, grandchildren…), by pid. */
function descendantsCpu(root) {
  const parent = new Map();
  const cpu = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(fields[1]));
      cpu.set(Number(name), (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // gone meanwhile
    }
  }
  const out = new Map();
  for (const pid of cpu.keys()) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        out.set(pid, cpu.get(pid));
        break;
      }
    }
  }
  return out;
}

/** CPU ms the descendants of `root` used between two descendantsCpu() snapshots (new ones count whole). */
function childrenCpuDelta(before, after) {
  let ms = 0;
  for (const [pid, cpu] of after) ms += cpu - (before.get(pid) ?? 0);
  return ms;
}

const show = (s) => `${fmt(s.rps)} req/s, ${fmt(s.cpuUs)} µs CPU/req (children ${fmt(s.childUs)}), p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms${s.errors ? `, ${s.errors} errors` : ''}`;

/** Client revisions of the resumability rows (issue 15): JSON answers, not resumable; resumable SSE. */
const PLAIN = '2024-11-05'; // the one revision whose clients cannot resume a Streamable HTTP stream
const RESUMABLE = '2025-11-25';
/** The session-less revision (issue 24): served on the gateway's pooled sessions. */
const MODERN = '2026-07-28';

/** VmRSS (MB) of `root` and, summed, of its descendants. */
function rssMb(root) {
  const rss = (pid) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  };
  let children = 0;
  for (const pid of descendantsCpu(root).keys()) children += rss(pid);
  return { gateway: rss(root), children };
}

export async function stdioBridging({ quick, log, compare }) {
  const sessions = quick ? 4 : 8;
  const seconds = Number(process.env.BENCH_SECONDS) || (quick ? 2 : 10);
  const rounds = Number(process.env.BENCH_ROUNDS) || (quick ? 1 : 2);
  const bridges = await ensureBridges();
  // The pool as large as the load's concurrency: each of the N clients finds a session, as each stateful one has its own.
  const gateway = (root) => () =>
    startGateway({ everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], path: '/everything/mcp', ...(root === ROOT && { stateless: { poolSize: sessions } }) } }, { root }).then((g) => ({ url: `${g.address}/everything/mcp`, pid: g.pid, stop: g.stop }));
  // [name, start, client revision]: the bridges are compared at 2025-06-18, the resumability rows at two others.
  const targets = [['mcp-retrofit', gateway(ROOT)]];
  if (bridges.bins) for (const [name, bin] of Object.entries(bridges.bins)) targets.push([name, () => startBridge(name, bin, process.execPath, [EVERYTHING, 'stdio'])]);
  for (const revision of [PLAIN, RESUMABLE]) {
    targets.push([`mcp-retrofit@${revision}`, gateway(ROOT), revision]);
    if (compare) targets.push([`${compare.label}@${revision}`, gateway(compare.root), revision]);
  }
  targets.push([`mcp-retrofit@${MODERN}`, gateway(ROOT), MODERN]);
  const results = {};
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const [name, startIt, revision] = targets[(i + round) % targets.length];
      let server;
      try {
        server = await startIt();
        // Warm-up: JIT, first spawn; at 2026-07-28, the whole pool (the row measures warm pooled sessions).
        if (!quick || revision === MODERN) await load(server.url, revision === MODERN ? sessions : 1, 1, revision);
        const cpu0 = cpuMs(server.pid);
        const kids0 = descendantsCpu(server.pid);
        // The children are sampled while the load's sessions hold them (they end with its DELETEs): each
        // one's last reading is kept, so a child gone by the next sample still counts.
        const kids1 = new Map(kids0);
        let peak = { gateway: 0, children: 0 };
        const sampler = setInterval(() => {
          for (const [pid, ms] of descendantsCpu(server.pid)) kids1.set(pid, ms);
          const now = rssMb(server.pid);
          if (now.gateway + now.children > peak.gateway + peak.children) peak = now;
        }, 250);
        const r = await load(server.url, sessions, seconds, revision).finally(() => clearInterval(sampler));
        // Includes the sessions' initialize and DELETE: a few requests in thousands, the same for every bridge.
        r.cpuUs = r.requests > 0 ? ((cpuMs(server.pid) - cpu0) * 1000) / r.requests : NaN;
        r.childUs = r.requests > 0 ? (childrenCpuDelta(kids0, kids1) * 1000) / r.requests : NaN;
        r.rss = peak;
        log(`  s3 ${name} round ${round + 1}: ${fmt(r.rps)} req/s ${fmt(r.cpuUs)} µs CPU/req (children ${fmt(r.childUs)}) p50 ${fmt(r.p50)} p99 ${fmt(r.p99)} errors ${r.errors} sessions ${r.sessions} sse answers ${r.sse}${r.firstError ? ` (${r.firstError})` : ''}${r.openError ? ` (open: ${r.openError})` : ''}`);
        (results[name] ??= []).push(r);
      } catch (err) {
        log(`  s3 ${name}: failed: ${err.message.split('\n')[0]}`);
        (results[name] ??= []).push({ failed: err.message.split('\n')[0] });
      } finally {
        await server?.stop();
      }
    }
  }
  const summary = (runs) => {
    const ok = runs.filter((r) => !r.failed);
    if (ok.length === 0) return { failed: runs[0]?.failed ?? 'no run' };
    return {
      rps: median(ok.map((r) => r.rps)),
      cpuUs: median(ok.map((r) => r.cpuUs)),
      childUs: median(ok.map((r) => r.childUs)),
      p50: median(ok.map((r) => r.p50)),
      p99: median(ok.map((r) => r.p99)),
      errors: ok.reduce((n, r) => n + r.errors, 0),
      sseShare: ok.reduce((n, r) => n + (r.sse ?? 0), 0) / Math.max(ok.reduce((n, r) => n + r.requests, 0), 1),
      rssGateway: median(ok.map((r) => r.rss?.gateway ?? NaN)),
      rssChildren: median(ok.map((r) => r.rss?.children ?? NaN)),
    };
  };
  const ours = summary(results['mcp-retrofit']);
  const rows = [];
  const resumability = [];
  // Issue 15: resumable SSE answers (event ids, a priming event, the per-session event store) against JSON ones.
  const plain = summary(results[`mcp-retrofit@${PLAIN}`]);
  const resumable = summary(results[`mcp-retrofit@${RESUMABLE}`]);
  const answers = (x) => `${Math.round(100 * x.sseShare)} % SSE answers`;
  if (!plain.failed && !resumable.failed) {
    resumability.push(row(`3 stdio, ${sessions} sessions × tools/call echo: client at ${RESUMABLE} (resumable SSE) vs at ${PLAIN} (JSON)`, `${PLAIN} ${show(plain)}, ${answers(plain)}`, `${RESUMABLE} ${show(resumable)}, ${answers(resumable)}`, ratio(resumable.rps, plain.rps)));
  }
  // Issue 24: a 2026-07-28 call on a warm pooled session against the same call in a stateful session.
  const modern = summary(results[`mcp-retrofit@${MODERN}`]);
  if (!modern.failed && !resumable.failed) {
    const mem = (x) => `peak RSS gateway ${fmt(x.rssGateway)} MB + children ${fmt(x.rssChildren)} MB`;
    resumability.push(row(`3 stdio, ${sessions} clients × tools/call echo: ${MODERN} on ${sessions} pooled sessions vs ${RESUMABLE} sessions, p50 latency`, `${RESUMABLE} ${show(resumable)}`, `${MODERN} ${show(modern)}`, ratio(modern.p50, resumable.p50), { max: 1.1 }));
    resumability.push(row(`3 stdio, ${sessions} clients × tools/call echo: ${MODERN} on pooled sessions vs ${RESUMABLE} sessions, gateway CPU per call`, `${RESUMABLE} ${fmt(resumable.cpuUs)} µs`, `${MODERN} ${fmt(modern.cpuUs)} µs`, ratio(modern.cpuUs, resumable.cpuUs), { max: 1.1 }));
    resumability.push(row(`3 stdio: memory with the pool at its bound (stateless.poolSize ${sessions}) vs ${sessions} stateful sessions`, `${RESUMABLE} ${mem(resumable)}`, `${MODERN} ${mem(modern)}`, ratio(modern.rssGateway + modern.rssChildren, resumable.rssGateway + resumable.rssChildren)));
  }
  if (compare) {
    for (const revision of [PLAIN, RESUMABLE]) {
      const was = summary(results[`${compare.label}@${revision}`]);
      const now = revision === PLAIN ? plain : resumable;
      if (was.failed || now.failed) continue;
      resumability.push(row(`3 stdio, ${sessions} sessions × tools/call echo, client at ${revision}: this build vs ${compare.label}`, `${compare.label} ${show(was)}, ${answers(was)}`, `${show(now)}, ${answers(now)}`, ratio(now.rps, was.rps)));
    }
  }
  if (!bridges.bins) return [skipped('3 stdio bridging vs supergateway / mcp-proxy', bridges.skip), ...resumability];
  for (const name of Object.keys(bridges.bins)) {
    const other = summary(results[name]);
    const label = `3 stdio bridging, ${sessions} sessions × tools/call echo: throughput vs ${name} ${bridges.versions[name]}`;
    if (other.failed || ours.failed) {
      rows.push(skipped(label, other.failed ? `${name} failed: ${other.failed}` : `mcp-retrofit failed: ${ours.failed}`));
      continue;
    }
    rows.push(row(label, `${name} ${show(other)}`, show(ours), ratio(ours.rps, other.rps), { min: 0.95, note: '(on par, 5% noise allowance)' }));
  }
  return [...rows, ...resumability];
}
