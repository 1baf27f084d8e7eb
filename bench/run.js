/**
 * `npm run bench [-- --quick] [-- --only=1,3] [-- --profile]`: runs the scenarios of issue 9 against the
 * built gateway (dist/, rebuilt first when any source is newer), prints one markdown table and writes it to bench/results/latest.md
 * (latest-quick.md for --quick and latest-partial.md for --only, so neither overwrites the recorded full run).
 * --profile: the gateway of scenario 1 runs with --cpu-prof; a summary (top self-time functions, time by
 * package) goes to bench/results/profile-passthrough.md.
 * --compare=DIR: scenarios 1, 2c, 3, 7 and 8 also run DIR's built gateway (an older commit's worktree), in the
 * same run (1, 2c and 3 in the same rounds; 7 and 8 one build after the other), so before and after come from one run.
 * Exits 1 when a scenario failed to run (a missed target is reported in the table, not as a failure).
 */
import { performance } from 'node:perf_hooks';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from './lib/build.js';
import { killAll } from './lib/procs.js';
import { byArea, inclusiveByArea, topSelf } from './lib/profile.js';
import { compareBuild, ROOT, scratch } from './lib/servers.js';
import { render, skipped } from './lib/table.js';
import { hugeEvent } from './scenarios/huge-event.js';
import { memory } from './scenarios/memory.js';
import { passthrough } from './scenarios/passthrough.js';
import { retrofitCost } from './scenarios/retrofit.js';
import { slowStream } from './scenarios/slow-stream.js';
import { regexStall, stall } from './scenarios/stall.js';
import { stdioBridging } from './scenarios/stdio.js';
import { streaming } from './scenarios/streaming.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const profile = args.includes('--profile');
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const compare = compareBuild(args.find((a) => a.startsWith('--compare='))?.slice('--compare='.length));
const unknown = args.filter((a) => !['--quick', '--profile'].includes(a) && !a.startsWith('--only=') && !a.startsWith('--compare='));
if (unknown.length > 0) {
  console.error(`usage: node bench/run.js [--quick] [--only=1,2,3,4,5,6,7,8,9,10] [--profile] [--compare=DIR]; unknown: ${unknown.join(' ')}`);
  process.exit(2);
}

const log = (line) => console.error(line);
const profileDir = profile ? scratch('mcp-retrofit-prof-') : undefined;
const SCENARIOS = [
  ['1', 'passthrough overhead', () => passthrough({ quick, log, profileDir, compare })],
  ['2', 'retrofit cost', () => retrofitCost({ quick, log })],
  ['2', 'retrofit vs other sessions', () => stall({ quick, log })],
  ['2', 'catastrophic patterns vs other sessions', () => regexStall({ quick, log, compare })],
  ['3', 'stdio bridging', () => stdioBridging({ quick, log, compare })],
  ['4', 'memory', () => memory({ quick, log })],
  ['5', 'streaming', () => streaming({ quick, log })],
  ['6', 'recording under load', async () => (await import('./scenarios/record.js')).recording({ quick, log })],
  ['7', 'slow reader of a GET stream', () => slowStream({ quick, log, compare })],
  ['8', 'a 200 MiB pass-through SSE event', () => hugeEvent({ quick, log, compare })],
  ['9', 'client profiles', async () => (await import('./scenarios/profiles.js')).profiles({ quick, log })],
  ['10', 'operator console', async () => (await import('./scenarios/console.js')).consoleCost({ quick, log })],
];

const startedAt = new Date();
if (!only || only.some((id) => SCENARIOS.some(([s]) => s === id))) await ensureBuilt();
const rows = [];
let failed = 0;
for (const [id, name, runIt] of SCENARIOS) {
  if (only && !only.includes(id)) continue;
  log(`# scenario ${id}: ${name}`);
  const t0 = performance.now();
  try {
    rows.push(...(await runIt()));
  } catch (err) {
    failed++;
    log(`# scenario ${id} (${name}) failed: ${err.stack ?? err}`);
    rows.push(skipped(`${id} ${name}`, `failed: ${String(err.message ?? err).split('\n')[0]}`));
    killAll();
  }
  log(`# scenario ${id}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const doc = render(rows, { quick, startedAt, seconds: (Date.now() - startedAt.getTime()) / 1000 });
const dir = join(ROOT, 'bench', 'results');
mkdirSync(dir, { recursive: true });
if (profileDir) {
  // Kept apart from latest.md: a profiled gateway is slower, so its table is not the record.
  let prof = `# Gateway CPU profile under scenario 1 (${startedAt.toISOString()}${quick ? ', quick' : ''})\n`;
  const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
  if (files[0]) {
    const file = join(profileDir, files[0]);
    const areas = byArea(file);
    prof += `\nBusy (non-idle) CPU ${areas.busyMs.toFixed(0)} ms, startup included.\n\n| self time by area | ms | % of busy |\n|---|---|---|\n`;
    for (const a of areas.areas) prof += `| ${a.area} | ${a.ms.toFixed(0)} | ${a.pct.toFixed(1)} |\n`;
    prof += '\n| inclusive time by package / dist file (charged once per sample) | ms | % of busy |\n|---|---|---|\n';
    for (const a of inclusiveByArea(file)) prof += `| ${a.area} | ${a.ms.toFixed(0)} | ${a.pct.toFixed(1)} |\n`;
    prof += '\n| top self-time function | where | ms | % of samples |\n|---|---|---|---|\n';
    for (const f of topSelf(file, 25)) prof += `| ${f.fn.slice(0, 60).replace(/\|/g, '\\|')} | ${f.where} | ${f.ms.toFixed(0)} | ${f.pct.toFixed(1)} |\n`;
  }
  console.log(prof);
  writeFileSync(join(dir, 'profile-passthrough.md'), prof);
}
console.log(doc);
if (!profile && rows.length > 0) {
  // Only a full run is the record: --quick and --only runs go to their own (uncommitted) files.
  const out = join(dir, quick ? 'latest-quick.md' : only ? 'latest-partial.md' : 'latest.md');
  writeFileSync(out, doc);
  log(`# written to ${out}`);
}
process.exit(failed > 0 ? 1 : 0);
