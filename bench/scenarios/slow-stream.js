/**
 * Scenario 7 — a long GET stream to a slow reader (issue 23): a `url:` upstream (bench/servers/stream-upstream.js)
 * floods a session's GET stream with notifications, as fast as it is let; the client (bench/lib/slow-reader.js,
 * its own process) reads 64 KiB every 100 ms for 60 s (6 s with --quick): a fraction of what the upstream
 * sends, but enough that the kernel's socket buffers (megabytes on loopback) drain and refill many times, so
 * the gateway goes through its wait-for-drain path again and again rather than once. A gateway that passes the reader's
 * backpressure on holds only what the sockets hold; one that does not grows with every event it takes in.
 * Sampled at start (10 s after the stream opened; 1 s with --quick), middle and end: the gateway's VmRSS (/proc), and the
 * listeners on the client's response and socket, counted inside the gateway by bench/lib/listener-probe.js
 * (`node --import`, bench only). MaxListenersExceededWarning lines in the gateway's log are counted too.
 * With --compare the other build runs the same way, after this one (one at a time: the flood takes a core).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { start } from '../lib/procs.js';
import { ROOT, scratch, startGateway, startUpstream } from '../lib/servers.js';
import { rssMb } from '../lib/sys.js';
import { fmt } from '../lib/table.js';

const PROBE = pathToFileURL(join(ROOT, 'bench', 'lib', 'listener-probe.js')).href;
const READER = join(ROOT, 'bench', 'lib', 'slow-reader.js');
/** "Flat": what the gateway may gain over the run. */
const MAX_RSS_GROWTH_MB = 10;
/**
 * "Start" is a sixth of the way in (10 s of 60): in the first seconds of a flood V8 grows its heap to its
 * working size, 10–15 MB of RSS whether or not anything leaks (measured with a build whose listeners stay
 * flat); growth after that is what stays with the stream.
 */
const START_AT = 1 / 6;
/** What the reader takes per 100 ms. */
const READ_BYTES = 64 * 1024;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The probe's last count for the stream (the one GET stream open), or undefined before its first write. */
function listeners(file) {
  if (!existsSync(file)) return undefined;
  try {
    const { streams } = JSON.parse(readFileSync(file, 'utf8'));
    const s = streams[0];
    return s && { total: s.res + s.socket, ...s };
  } catch {
    return undefined; // caught mid-write: the next sample reads it
  }
}

async function oneBuild({ root, seconds, log, label }) {
  const up = await startUpstream('stream-upstream');
  const probeFile = join(scratch('mcp-retrofit-probe-'), 'listeners.json');
  const gw = await startGateway({ flood: { url: `${up.url}/mcp`, path: '/flood/mcp' } }, { root, nodeArgs: ['--import', PROBE], env: { LISTENER_PROBE_FILE: probeFile } });
  const reader = start(process.execPath, [READER, `${gw.address}/flood/mcp`, String(seconds), String(READ_BYTES)]);
  try {
    await reader.waitFor(/^ready$/, 20_000);
    const t0 = Date.now();
    const samples = [];
    for (const [name, at] of [
      ['start', seconds * START_AT],
      ['middle', seconds / 2],
      ['end', seconds - 0.5],
    ]) {
      await sleep(Math.max(0, t0 + at * 1000 - Date.now()));
      const stats = await (await fetch(`${up.url}/stats`)).json();
      const progress = JSON.parse(reader.lines.filter((l) => l.startsWith('{')).pop() ?? '{"bytes":0,"events":0}');
      const s = { name, rss: rssMb(gw.pid), listeners: listeners(probeFile), sent: stats.eventBytes, sentEvents: stats.events, read: progress.bytes, readEvents: progress.events };
      samples.push(s);
      log(`  s7 ${label} ${name}: RSS ${fmt(s.rss)} MB, listeners ${JSON.stringify(s.listeners)}, upstream sent ${s.sentEvents} events (${fmt(s.sent / 1048576)} MiB), client read ${s.readEvents} (${fmt(s.read / 1048576)} MiB)`);
    }
    const end = await reader.waitFor(/"done":true|"closed":true/, 30_000);
    const closed = end.input.includes('"closed":true');
    const warnings = (readFileSync(gw.logFile, 'utf8').match(/MaxListenersExceededWarning/g) ?? []).length;
    return { samples, warnings, closed };
  } finally {
    await reader.stop();
    await gw.stop();
    await up.stop();
  }
}

const trio = (samples, f) => samples.map(f).join(' → ');

export async function slowStream({ quick, log, compare }) {
  const seconds = quick ? 6 : 60;
  const builds = [{ label: 'this build', root: ROOT }, ...(compare ? [{ label: compare.label, root: compare.root }] : [])];
  const runs = [];
  for (const b of builds) runs.push({ ...b, ...(await oneBuild({ ...b, seconds, log })) });
  const title = `7 slow reader of a GET stream (${seconds} s, ${READ_BYTES / 1024} KiB per 100 ms; the upstream floods notifications)`;
  const rssText = (r) => {
    const [first, , last] = r.samples;
    const held = (last.sent - last.read) / 1048576;
    return `${trio(r.samples, (s) => fmt(s.rss))} MB (${last.rss - first.rss >= 0 ? '+' : ''}${fmt(last.rss - first.rss)} MB); upstream sent ${fmt(last.sent / 1048576)} MiB, client read ${fmt(last.read / 1048576)} MiB, ${fmt(held)} MiB between${r.closed ? '; stream closed early' : ''}`;
  };
  const listenerText = (r) => `${trio(r.samples, (s) => (s.listeners ? String(s.listeners.total) : '?'))} (res + socket; most at the end: ${JSON.stringify(r.samples[2].listeners?.top ?? {})}), ${r.warnings} MaxListenersExceededWarning`;
  const [ours, before] = runs;
  const growth = (r) => r.samples[2].rss - r.samples[0].rss;
  const listenersFlat = (r) => r.warnings === 0 && r.samples.every((s) => s.listeners !== undefined) && r.samples[2].listeners.total <= r.samples[0].listeners.total;
  const baseline = (f) => (before ? `${before.label}: ${f(before)}` : '—');
  return [
    { scenario: `${title}: gateway RSS start → middle → end`, baseline: baseline(rssText), ours: rssText(ours), ratio: NaN, target: `flat: < ${MAX_RSS_GROWTH_MB} MB growth`, met: growth(ours) < MAX_RSS_GROWTH_MB && !ours.closed },
    { scenario: `${title}: listeners on the client's response and socket start → middle → end`, baseline: baseline(listenerText), ours: listenerText(ours), ratio: NaN, target: 'flat: end ≤ start, no warning', met: listenersFlat(ours) },
  ];
}
