/**
 * Scenario 1 — passthrough overhead with an HTTP upstream. tools/call load from autocannon (its own process)
 * direct to the upstream, through nginx and through mcp-retrofit; raw upstream in JSON and SSE modes, and a
 * real v1 SDK upstream. Rounds alternate the order of the targets so a noisy neighbour hits all of them;
 * the median of the rounds is reported. Also a bare Node.js proxy (bench/servers/bare-proxy.js) as the floor
 * any Node proxy starts from, and the CPU each Node proxy spends per exchange (less noise-sensitive than req/s).
 * With --compare, another build's gateway (`before`) is one more target of every case, in the same rounds.
 * A ratio between two targets is the median of its per-round ratios (the two ran seconds apart in the same
 * round), not the ratio of the two medians: on a shared VM whose speed drifts by a third from one round to the
 * next, only targets measured side by side compare; the cells keep each target's own medians, and the rounds'
 * spread is shown.
 */
import { autocannon, toolCall } from '../lib/load.js';
import { startNginx } from '../lib/nginx.js';
import { startGateway, startUpstream } from '../lib/servers.js';
import { cpuMs, median } from '../lib/sys.js';
import { fmt, ratio, row, skipped } from '../lib/table.js';
import { OBJECT_SCHEMA, SMALL_TEXT } from '../lib/data.js';

function summary(runs) {
  const cpu = runs.every((r) => r.cpuUs !== undefined) ? median(runs.map((r) => r.cpuUs)) : undefined;
  return { rps: median(runs.map((r) => r.rps)), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), errors: runs.reduce((n, r) => n + r.errors + r.non2xx, 0), cpuUs: cpu };
}

function show(s) {
  return `${fmt(s.rps)} req/s, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms${s.errors ? `, ${s.errors} errors` : ''}`;
}

const cpuCell = (x, b) => `${fmt(x.cpuUs)} µs/exchange (${fmt(x.cpuUs / b.cpuUs)}× bare)`;
const rpsCell = (x, b, ng) => `${fmt(x.rps)} req/s (${fmt(x.rps / b.rps)}× bare${ng ? `, ${fmt(x.rps / ng.rps)}× nginx` : ''}), p99 ${fmt(x.p99)} ms`;

/**
 * Run scenario 1; `profileDir` makes the gateway write a --cpu-prof profile there; `compare` ({ root, label },
 * from --compare) adds another build's gateway as one more target of the same rounds.
 */
export async function passthrough({ quick, profileDir, log, compare }) {
  const seconds = quick ? 1 : 6;
  const rounds = quick ? 1 : 5;
  const connections = 10;
  const [raw, sdk] = await Promise.all([startUpstream('raw-upstream'), startUpstream('sdk-upstream')]);
  const bare = await startUpstream('bare-proxy', {}, [raw.url]);
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const upstreams = {
    rawjson: { url: `${raw.url}/json/mcp`, path: '/rawjson/mcp' },
    rawsse: { url: `${raw.url}/sse/mcp`, path: '/rawsse/mcp' },
    sdk: { url: `${sdk.url}/mcp`, path: '/sdk/mcp' },
    retro: { url: `${raw.url}/json/mcp`, path: '/retro/mcp', tools: { echo: { outputSchema: OBJECT_SCHEMA } } },
  };
  const [gw, nginx, old] = await Promise.all([startGateway(upstreams, { nodeArgs }), startNginx(raw.url), compare ? startGateway(upstreams, { root: compare.root }) : undefined]);
  try {
    const before = (path) => (old ? { before: `${old.address}${path}` } : {});
    const cases = {
      rawjson: { direct: `${raw.url}/json/mcp`, gateway: `${gw.address}/rawjson/mcp`, bare: `${bare.url}/json/mcp`, ...(nginx.url && { nginx: `${nginx.url}/json/mcp` }), ...before('/rawjson/mcp') },
      rawsse: { direct: `${raw.url}/sse/mcp`, gateway: `${gw.address}/rawsse/mcp`, bare: `${bare.url}/sse/mcp`, ...(nginx.url && { nginx: `${nginx.url}/sse/mcp` }), ...before('/rawsse/mcp') },
      sdk: { direct: `${sdk.url}/mcp`, gateway: `${gw.address}/sdk/mcp`, ...before('/sdk/mcp') },
      // The retrofit and its passthrough twin (the same upstream, the same bytes, no schema) side by side in
      // each round, so the ratio compares runs seconds apart, not a case apart.
      // `typed`: the same result typed by the upstream itself (its structuredContent passed through, parsed and
      // checked for the client's revision): the same answer size and one parse, without the extraction.
      retro: { gateway: `${gw.address}/retro/mcp`, passthrough: `${gw.address}/rawjson/mcp`, typed: `${gw.address}/rawjson/mcp`, ...before('/retro/mcp'), ...(old && { beforePassthrough: `${old.address}/rawjson/mcp` }) },
    };
    const body = toolCall('echo');
    const bodies = { typed: toolCall('typed') };
    // Warm the JITs and connection pools so round 1 is not penalised (--quick: no warm-up).
    for (const c of Object.values(cases)) if (!quick) for (const [target, url] of Object.entries(c)) await autocannon(url, { body: bodies[target] ?? body, connections, seconds: 1 });
    const results = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, targets] of Object.entries(cases)) {
        const order = Object.entries(targets);
        for (let i = 0; i < order.length; i++) {
          const [target, url] = order[(i + round) % order.length];
          const pid = { gateway: gw.pid, passthrough: gw.pid, typed: gw.pid, bare: bare.pid, before: old?.pid, beforePassthrough: old?.pid }[target];
          const cpu0 = pid === undefined ? 0 : cpuMs(pid);
          const r = await autocannon(url, { body: bodies[target] ?? body, connections, seconds });
          if (pid !== undefined) r.cpuUs = ((cpuMs(pid) - cpu0) * 1000) / Math.max(r.requests, 1);
          log(`  s1 ${name}/${target} round ${round + 1}: ${fmt(r.rps)} req/s p99 ${r.p99} ms`);
          ((results[name] ??= {})[target] ??= []).push(r);
        }
      }
    }
    const s = Object.fromEntries(Object.entries(results).map(([name, t]) => [name, Object.fromEntries(Object.entries(t).map(([k, v]) => [k, summary(v)]))]));
    /** The median of `f(a's run, b's run)` over the rounds of case `name`, and the spread of those ratios. */
    const paired = (name, a, b, f) => {
      const per = results[name][a].map((r, i) => f(r, results[name][b][i])).sort((x, y) => x - y);
      return { ratio: median(per), spread: per.length > 1 ? `; rounds ${fmt(per[0])}–${fmt(per[per.length - 1])}×` : '' };
    };
    const rows = [];
    for (const [name, label] of [
      ['rawjson', 'raw upstream, JSON'],
      ['rawsse', 'raw upstream, SSE'],
    ]) {
      const { direct, gateway, nginx: ng } = s[name];
      if (ng) {
        rows.push(row(`1 passthrough ${label}: throughput vs nginx`, `nginx ${show(ng)}`, show(gateway), ratio(gateway.rps, ng.rps), { min: 0.85 }));
        const addedGw = gateway.p99 - direct.p99;
        const addedNg = ng.p99 - direct.p99;
        rows.push(
          row(
            `1 passthrough ${label}: p99 added latency vs nginx's`,
            `nginx +${fmt(addedNg)} ms (direct p99 ${fmt(direct.p99)} ms)`,
            `+${fmt(addedGw)} ms`,
            // autocannon reports whole milliseconds: nginx's added p99 counts as at least 1 ms.
            Math.max(addedGw, 0) / Math.max(addedNg, 1),
            { max: 1.5 },
          ),
        );
      } else {
        rows.push(skipped(`1 passthrough ${label}: vs nginx`, nginx.skip));
      }
      rows.push(row(`1 passthrough ${label}: throughput vs direct`, `direct ${show(direct)}`, show(gateway), ratio(gateway.rps, direct.rps)));
      const b = s[name].bare;
      // Issue 13's targets: within 1.25× the bare proxy's CPU per exchange and 0.9× its throughput.
      const rps = paired(name, 'gateway', 'bare', (g, x) => g.rps / x.rps);
      const cpu = paired(name, 'gateway', 'bare', (g, x) => g.cpuUs / x.cpuUs);
      rows.push(row(`1 passthrough ${label}: throughput vs a bare Node.js proxy (no features; the platform's floor)`, `bare ${show(b)}`, `${show(gateway)}${rps.spread}`, rps.ratio, { min: 0.9 }));
      rows.push(row(`1 passthrough ${label}: proxy CPU per exchange vs the bare Node.js proxy`, `bare ${fmt(b.cpuUs)} µs`, `${fmt(gateway.cpuUs)} µs${cpu.spread}`, cpu.ratio, { max: 1.25 }));
      const was = s[name].before;
      if (was) {
        rows.push(row(`1 passthrough ${label}: CPU per exchange, this build vs ${compare.label}`, `${compare.label} ${cpuCell(was, b)}`, cpuCell(gateway, b), gateway.cpuUs / was.cpuUs));
        rows.push(row(`1 passthrough ${label}: throughput, this build vs ${compare.label}`, `${compare.label} ${rpsCell(was, b, ng)}`, rpsCell(gateway, b, ng), ratio(gateway.rps, was.rps)));
      }
    }
    const { direct: sd, gateway: sg, before: sb } = s.sdk;
    rows.push(row('1 passthrough v1 SDK upstream (stateless, JSON): throughput vs direct', `direct ${show(sd)}`, show(sg), ratio(sg.rps, sd.rps), { min: 0.95 }));
    if (sb) rows.push(row(`1 passthrough v1 SDK upstream: throughput, this build vs ${compare.label}`, `${compare.label} ${show(sb)} (${fmt(sb.rps / sd.rps)}× direct)`, show(sg), ratio(sg.rps, sb.rps)));
    if (s.retro) {
      // Issue 23: the retrofit of a small result should cost little more than its parse and validation.
      const { gateway: ret, passthrough: pass, typed, before: rb, beforePassthrough: pb } = s.retro;
      const what = `${SMALL_TEXT.length}-byte JSON text, an object schema (station, readings: items of 5 properties), auto extraction`;
      const both = (x) => `${fmt(x.rps)} req/s, ${fmt(x.cpuUs)} µs CPU/exchange, p99 ${fmt(x.p99)} ms${x.errors ? `, ${x.errors} errors` : ''}`;
      const rps = paired('retro', 'gateway', 'passthrough', (r, p) => r.rps / p.rps);
      // The same direction as throughput: exchanges per CPU-second, retrofit ÷ passthrough (= passthrough's µs ÷ the retrofit's).
      const cpu = paired('retro', 'gateway', 'passthrough', (r, p) => p.cpuUs / r.cpuUs);
      rows.push(row(`1 raw JSON + retrofit of a small result (${what}) vs passthrough: throughput`, `passthrough ${both(pass)}`, `${both(ret)}${rps.spread}`, rps.ratio, { min: 0.85 }));
      rows.push(row('1 raw JSON + retrofit of a small result vs passthrough: CPU per exchange (passthrough µs ÷ retrofit µs)', `passthrough ${fmt(pass.cpuUs)} µs`, `${fmt(ret.cpuUs)} µs${cpu.spread}`, cpu.ratio, { min: 0.85 }));
      // What the retrofit costs beyond an answer of the same size that the upstream typed itself.
      const typedRps = paired('retro', 'gateway', 'typed', (r, t) => r.rps / t.rps);
      const typedCpu = paired('retro', 'gateway', 'typed', (r, t) => t.cpuUs / r.cpuUs);
      rows.push(row('1 raw JSON + retrofit of a small result vs the same result typed by the upstream (structuredContent passed through): throughput', `typed ${both(typed)} (${fmt(typed.rps / pass.rps)}× the untyped passthrough)`, `${both(ret)}${typedRps.spread}`, typedRps.ratio));
      rows.push(row('1 raw JSON + retrofit of a small result vs the same result typed by the upstream: CPU per exchange (typed µs ÷ retrofit µs)', `typed ${fmt(typed.cpuUs)} µs`, `${fmt(ret.cpuUs)} µs${typedCpu.spread}`, typedCpu.ratio));
      if (rb) rows.push(row(`1 raw JSON + retrofit of a small result: this build vs ${compare.label}`, `${compare.label} ${both(rb)}${pb ? ` (${fmt(rb.rps / pb.rps)}× its passthrough's throughput, ${fmt(pb.cpuUs / rb.cpuUs)}× its exchanges per CPU-second)` : ''}`, both(ret), ratio(ret.rps, rb.rps)));
    }
    return rows;
  } finally {
    await Promise.all([gw.stop(), old?.stop()]);
    await Promise.all([raw.stop(), sdk.stop(), bare.stop(), nginx.stop?.()]);
  }
}
