/**
 * Scenario 8 — a 200 MiB pass-through SSE event (issue 23): a `url:` upstream (bench/servers/stream-upstream.js)
 * answers resources/read `huge` with one SSE event whose text is 200 MiB, written in 1 MiB slices. Nothing
 * awaits that answer (only tools/list, tools/call and tasks/result answers may be rewritten, and those are held,
 * bounded by limits.maxResultBytes), so the gateway forwards the event as its bytes arrive. The client (bench/lib/huge-client.js, its own process)
 * reads it as fast as it comes. Measured: the gateway's peak RSS growth over its RSS before the call (VmHWM,
 * reset first through /proc/<pid>/clear_refs, and VmRSS sampled every 20 ms, whichever is higher), and the
 * time from the upstream's first byte to the client's first byte, direct and through the gateway (both
 * stamped on the performance.timeOrigin clock, which processes on one machine share). The gateway runs with
 * its default limits (maxResultBytes 16 MiB), as a user's would. The bare Node proxy of scenario 1 is measured
 * the same way, as the floor of the platform: what a Node process holds while 200 MiB of socket reads (each its
 * own ArrayBuffer, freed only by a GC) pass through it depends mostly on the size V8 gave its young generation.
 * With --compare the other build runs the same way, after this one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd } from '../lib/procs.js';
import { ROOT, startGateway, startUpstream } from '../lib/servers.js';
import { rssMb } from '../lib/sys.js';
import { fmt, skipped } from '../lib/table.js';

const CLIENT = join(ROOT, 'bench', 'lib', 'huge-client.js');
const HUGE_BYTES = 200 * 1024 * 1024;
/** Bounded: well under the event's size. */
const MAX_GROWTH_MB = 64;
/** "As they arrive": a proxy that held the event whole would be seconds late, not this. */
const MAX_FIRST_BYTE_MS = 100;
const MiB = 1024 * 1024;
/**
 * A gateway just started has a young generation V8 grew while it loaded (16 MiB semi-spaces), and the socket
 * reads of the event (each an ArrayBuffer) are then freed only when external memory forces a full GC, every
 * ~64 MB; once idle for a few seconds, V8's memory reducer shrinks it again, and scavenges free them as they
 * go. Both states are measured: the second call waits this long after its gateway started.
 */
const SETTLE_MS = 20_000;

function hwmMb(pid) {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Reset the peak RSS the kernel keeps for `pid` (Linux ≥ 4.0, root or the same user); false when it cannot. */
function resetHwm(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function call(url, upstream) {
  const out = JSON.parse((await runToEnd(process.execPath, [CLIENT, url, 'huge'], { timeoutMs: 180_000 })).trim().split('\n').pop());
  const stats = await (await fetch(`${upstream.url}/stats`)).json();
  return { ...out, upstreamFirstByteAt: stats.huge.firstByteAt, upstreamBytes: stats.huge.bytes, upstreamDone: stats.huge.done, firstByteMs: out.firstByteAt ? out.firstByteAt - stats.huge.firstByteAt : NaN, seconds: (out.endAt - stats.huge.firstByteAt) / 1000 };
}

/** The 200 MiB call through a proxy (`pid`, its MCP endpoint `url`): its peak RSS growth and the call's timings. */
async function throughProxy(pid, url, upstream, log, label) {
  // One small call first, so the proxy's one-off costs (first request, JIT) are not counted as growth.
  await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' }) }).then((r) => r.text());
  const before = rssMb(pid);
  const reset = resetHwm(pid);
  let peak = before;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the proxy is gone: the call reports it
    }
  }, 20);
  let r;
  try {
    r = await call(url, upstream);
  } finally {
    clearInterval(sampler);
  }
  if (reset) peak = Math.max(peak, hwmMb(pid));
  const growth = peak - before;
  log(`  s8 ${label}: RSS before ${fmt(before)} MB, peak +${fmt(growth)} MB (${reset ? 'VmHWM reset' : 'sampled only'}); client ${fmt(r.bytes / MiB)} MiB in ${fmt(r.seconds)} s, first byte +${fmt(r.firstByteMs)} ms${r.error ? `, ${r.error}` : ''}`);
  return { ...r, before, growth, reset };
}

/** Through a gateway of `root`'s build, `settleMs` after its start (its first small call made at once). */
async function throughGateway(root, upstream, log, label, settleMs = 0) {
  const gw = await startGateway({ huge: { url: `${upstream.url}/mcp`, path: '/huge/mcp' } }, { root });
  try {
    if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
    return await throughProxy(gw.pid, `${gw.address}/huge/mcp`, upstream, log, label);
  } finally {
    await gw.stop();
  }
}

/** The bare Node proxy of scenario 1 (backpressure, nothing else): the platform's own floor for this event. */
async function throughBare(upstream, log) {
  const bare = await startUpstream('bare-proxy', {}, [upstream.url]);
  try {
    return await throughProxy(bare.pid, `${bare.url}/mcp`, upstream, log, 'bare Node proxy');
  } finally {
    await bare.stop();
  }
}

export async function hugeEvent({ quick, log, compare }) {
  const upstream = await startUpstream('stream-upstream', { HUGE_BYTES: String(HUGE_BYTES) });
  try {
    const direct = await call(`${upstream.url}/mcp`, upstream);
    log(`  s8 direct: ${fmt(direct.bytes / MiB)} MiB in ${fmt(direct.seconds)} s, first byte +${fmt(direct.firstByteMs)} ms`);
    const bare = await throughBare(upstream, log);
    const ours = await throughGateway(ROOT, upstream, log, 'this build, just started');
    // --quick has no time to let a gateway settle.
    const settled = quick ? undefined : await throughGateway(ROOT, upstream, log, `this build, ${SETTLE_MS / 1000} s after its start`, SETTLE_MS);
    const before = compare ? await throughGateway(compare.root, upstream, log, compare.label) : undefined;
    const whole = (r) => r.bytes >= HUGE_BYTES && !r.error;
    const got = (r) => (r.error ? `client got a ${r.error} error (${r.bytes} bytes) after ${fmt(r.seconds)} s` : `client got ${fmt(r.bytes / MiB)} of ${fmt(HUGE_BYTES / MiB)} MiB in ${fmt(r.seconds)} s`);
    const rss = (r) => `+${fmt(r.growth)} MB over ${fmt(r.before)} MB${r.reset ? '' : ' (sampled every 20 ms; VmHWM could not be reset)'}; ${got(r)}`;
    const first = (r) => `+${fmt(r.firstByteMs)} ms; ${got(r)}`;
    const title = '8 one 200 MiB SSE event passed through (a resources/read answer, which nothing awaits; default limits)';
    return [
      { scenario: `${title}: gateway peak RSS growth, the call right after the gateway started`, baseline: `bare Node proxy: ${rss(bare)}${before ? `; ${compare.label}: ${rss(before)}` : ''}`, ours: rss(ours), ratio: NaN, target: `< ${MAX_GROWTH_MB} MB`, met: ours.growth < MAX_GROWTH_MB },
      settled
        ? { scenario: `${title}: gateway peak RSS growth, the call ${SETTLE_MS / 1000} s after the gateway started`, baseline: `bare Node proxy: ${rss(bare)}`, ours: rss(settled), ratio: NaN, target: `< ${MAX_GROWTH_MB} MB`, met: settled.growth < MAX_GROWTH_MB }
        : skipped(`${title}: gateway peak RSS growth, the call ${SETTLE_MS / 1000} s after the gateway started`, 'not in --quick (it waits for the gateway to settle)'),
      {
        scenario: `${title}: client's first byte after the upstream's first byte`,
        baseline: `direct +${fmt(direct.firstByteMs)} ms (${got(direct)})${before ? `; ${compare.label}: ${first(before)}` : ''}`,
        ours: first(ours),
        ratio: NaN,
        target: `≤ ${MAX_FIRST_BYTE_MS} ms, whole event delivered`,
        met: ours.firstByteMs <= MAX_FIRST_BYTE_MS && whole(ours),
      },
    ];
  } finally {
    await upstream.stop();
  }
}
