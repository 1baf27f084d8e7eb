/**
 * Scenario 3 — stdio bridging: the same stdio server (server-everything) fronted by mcp-retrofit (a
 * `command:` upstream), supergateway (--stateful streamableHttp) and mcp-proxy (streamable HTTP), each giving
 * every session its own child. Same client load for all: bench/lib/session-load.js, N sessions, each
 * initialize once then tools/call echo back to back. Rounds rotate the order; medians reported.
 */
import { join } from 'node:path';
import { ensureBridges, startBridge } from '../lib/bridges.js';
import { runToEnd } from '../lib/procs.js';
import { ROOT, startGateway } from '../lib/servers.js';
import { median } from '../lib/sys.js';
import { fmt, ratio, row, skipped } from '../lib/table.js';

const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

async function load(url, sessions, seconds) {
  const out = await runToEnd(process.execPath, [join(ROOT, 'bench', 'lib', 'session-load.js'), url, String(sessions), String(seconds), 'echo', '{"message":"hi"}'], {
    timeoutMs: (seconds + 60) * 1000,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

const show = (s) => `${fmt(s.rps)} req/s, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms${s.errors ? `, ${s.errors} errors` : ''}`;

export async function stdioBridging({ quick, log }) {
  const sessions = quick ? 4 : 8;
  const seconds = quick ? 2 : 10;
  const rounds = quick ? 1 : 2;
  const bridges = await ensureBridges();
  const targets = [['mcp-retrofit', () => startGateway({ everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], path: '/everything/mcp' } }).then((g) => ({ url: `${g.address}/everything/mcp`, stop: g.stop }))]];
  if (bridges.bins) for (const [name, bin] of Object.entries(bridges.bins)) targets.push([name, () => startBridge(name, bin, process.execPath, [EVERYTHING, 'stdio'])]);
  const results = {};
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const [name, startIt] = targets[(i + round) % targets.length];
      let server;
      try {
        server = await startIt();
        if (!quick) await load(server.url, 1, 1); // warm-up: JIT, first spawn
        const r = await load(server.url, sessions, seconds);
        log(`  s3 ${name} round ${round + 1}: ${fmt(r.rps)} req/s p50 ${fmt(r.p50)} p99 ${fmt(r.p99)} errors ${r.errors} sessions ${r.sessions}${r.firstError ? ` (${r.firstError})` : ''}${r.openError ? ` (open: ${r.openError})` : ''}`);
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
    return { rps: median(ok.map((r) => r.rps)), p50: median(ok.map((r) => r.p50)), p99: median(ok.map((r) => r.p99)), errors: ok.reduce((n, r) => n + r.errors, 0) };
  };
  const ours = summary(results['mcp-retrofit']);
  const rows = [];
  if (!bridges.bins) return [skipped('3 stdio bridging vs supergateway / mcp-proxy', bridges.skip)];
  for (const name of Object.keys(bridges.bins)) {
    const other = summary(results[name]);
    const label = `3 stdio bridging, ${sessions} sessions × tools/call echo: throughput vs ${name} ${bridges.versions[name]}`;
    if (other.failed || ours.failed) {
      rows.push(skipped(label, other.failed ? `${name} failed: ${other.failed}` : `mcp-retrofit failed: ${ours.failed}`));
      continue;
    }
    rows.push(row(label, `${name} ${show(other)}`, show(ours), ratio(ours.rps, other.rps), { min: 0.95, note: '(on par, 5% noise allowance)' }));
  }
  return rows;
}
