/**
 * Scenario 4 — memory: the gateway's VmRSS (its own process only, children excluded) idle, with 1,000 idle
 * sessions on an HTTP upstream (without and with an open GET stream each), and per stdio session.
 * Sessions are held by a separate client process (bench/lib/idle-sessions.js).
 */
import { join } from 'node:path';
import { start } from '../lib/procs.js';
import { ROOT, startGateway, startUpstream } from '../lib/servers.js';
import { rssMb, until } from '../lib/sys.js';
import { fmt } from '../lib/table.js';
import { autocannon, toolCall } from '../lib/load.js';

const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

async function holdSessions(url, n, mode, waitMs) {
  const proc = start(process.execPath, [join(ROOT, 'bench', 'lib', 'idle-sessions.js'), url, String(n), mode, String(waitMs)]);
  const m = await proc.waitFor(/^ready (\d+) (\d+) (\d+)(.*)$/, 180_000);
  return { proc, sessions: Number(m[1]), streams: Number(m[2]), failures: Number(m[3]), detail: m[4].trim() };
}

function memRow(scenario, baseline, ours, r, target, met) {
  return { scenario, baseline, ours, ratio: r, target, met };
}

export async function memory({ quick, log }) {
  const rows = [];
  const n = 1000;
  const raw = await startUpstream('raw-upstream');
  try {
    for (const mode of quick ? ['get'] : ['noget', 'get']) {
      // A fresh gateway per measurement, so one does not inherit the other's heap.
      const gw = await startGateway({ raw: { url: `${raw.url}/json/mcp`, path: '/raw/mcp' } });
      const url = `${gw.address}/raw/mcp`;
      let held;
      try {
        await autocannon(url, { body: toolCall('echo'), connections: 2, seconds: 1 });
        const idle = rssMb(gw.pid);
        held = await holdSessions(url, n, mode, quick ? 10_000 : 20_000);
        const rss = rssMb(gw.pid);
        // GET streams reach the upstream a little after their client saw headers: give them a moment.
        let upstreamStats = { openStreams: 0 };
        if (mode === 'get') {
          await until(async () => {
            upstreamStats = await (await fetch(`${raw.url}/stats`)).json();
            return upstreamStats.openStreams >= held.streams;
          }, quick ? 2_000 : 5_000).catch(() => {});
        }
        const label = mode === 'get' ? `${n} idle sessions, each with an open GET stream (${held.streams} streams got headers, upstream saw ${upstreamStats.openStreams})` : `${n} idle sessions (initialized, no GET stream)`;
        log(`  s4 ${mode}: idle ${fmt(idle)} MB, with sessions ${fmt(rss)} MB; sessions ${held.sessions}, streams ${held.streams}, failures ${held.failures} ${held.detail}`);
        if (mode === 'noget' || quick) rows.push(memRow('4 memory: gateway RSS idle (HTTP upstream, after warm-up)', '—', `${fmt(idle)} MB`, NaN, '—', null));
        const failures = held.failures ? `; ${held.failures} sessions failed to open: ${held.detail}` : '';
        rows.push(memRow(`4 memory: RSS with ${label}${failures}`, `idle ${fmt(idle)} MB`, `${fmt(rss)} MB (+${fmt(((rss - idle) * 1024) / n)} KB/session)`, rss / idle, '≤ 150 MB', rss <= 150 && held.sessions === n && (mode === 'noget' || held.streams === n)));
      } finally {
        await held?.proc.stop();
        await gw.stop();
      }
    }
  } finally {
    await raw.stop();
  }

  const k = quick ? 2 : 20;
  const gw = await startGateway({ everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], path: '/everything/mcp' } });
  let held;
  try {
    const url = `${gw.address}/everything/mcp`;
    // One session first, so the per-session figure does not carry the first session's one-off costs.
    const warm = quick ? undefined : await holdSessions(url, 1, 'get', 10_000);
    const base = rssMb(gw.pid);
    held = await holdSessions(url, k, 'get', 20_000);
    const rss = rssMb(gw.pid);
    await warm?.proc.stop();
    const per = ((rss - base) * 1024) / held.sessions;
    log(`  s4 stdio: base ${fmt(base)} MB, ${held.sessions} sessions ${fmt(rss)} MB, per session ${fmt(per)} KB`);
    rows.push(memRow(`4 memory: gateway RSS per stdio session (server-everything; ${held.sessions} sessions with GET streams, children excluded)`, `${warm ? '1 session' : 'no session'} ${fmt(base)} MB`, `${fmt(rss)} MB, +${fmt(per)} KB/session`, NaN, '—', null));
  } finally {
    await held?.proc.stop();
    await gw.stop();
  }
  return rows;
}
