// `npm run conformance [-- --src DIR|URL] [-- --only server|client]`: the official MCP conformance suite
// (@modelcontextprotocol/conformance, on Node 22), directly and through the gateway, and the per-scenario
// verdicts that differ.
//   server scenarios: the suite's reference server directly, through the gateway as a `url:` upstream, and through
//                     the gateway as a `command:` upstream (its createMcpServer() on stdio, derived at run time);
//   client scenarios: the suite's reference client against the suite's servers directly, and through a gateway
//                     started in front of each scenario's server (client-shim.mjs).
// Needs a checkout of modelcontextprotocol/conformance at the suite's tag (CONFORMANCE_SRC or --src; see setup.mjs).
// Caches tools and sources in node_modules/.cache/mcp-retrofit-conformance (CONFORMANCE_CACHE overrides);
// results and logs go to <cache>/results/<time>/, the tables also to <cache>/results/latest.md.
// Exits 0 when every run completed (differing verdicts are the report, not a failure), 1 when one could not run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../../bench/lib/build.js';
import { killAll } from '../../bench/lib/procs.js';
import { ROOT } from '../../bench/lib/servers.js';
import { readVerdicts, table, totals } from './report.mjs';
import { installTools, prepareSources, SetupError, SUITE_VERSION } from './setup.mjs';
import { runClientScenarios, runServerScenarios, startGateway, startReference } from './suite.mjs';

const args = process.argv.slice(2);
const value = (flag) => {
  const i = args.indexOf(flag);
  return i === -1 ? undefined : args[i + 1];
};
const only = value('--only');
const src = value('--src') ?? process.env.CONFORMANCE_SRC;
if (args.some((a, i) => a.startsWith('--') && !['--src', '--only'].includes(a) && !['--src', '--only'].includes(args[i - 1] ?? '')) || (only && !['server', 'client'].includes(only))) {
  process.stderr.write('usage: npm run conformance [-- --src DIR|GIT_URL] [-- --only server|client]\n');
  process.exit(2);
}
const log = (line) => process.stderr.write(`${line}\n`);
const cache = process.env.CONFORMANCE_CACHE ?? join(ROOT, 'node_modules', '.cache', 'mcp-retrofit-conformance');
if (/\s/.test(cache) || /\s/.test(process.execPath)) {
  log(`conformance: the suite splits its client command on spaces; use a CONFORMANCE_CACHE without any (${cache})`);
  process.exit(1);
}

async function serverRuns(tools, sources, out) {
  const columns = new Map();
  const reference = await startReference(tools, sources, join(out, 'reference-server.log'));
  try {
    log(`# server scenarios, direct: ${reference.url}`);
    await runServerScenarios(tools, reference.url, join(out, 'server-direct'));
    columns.set('direct', readVerdicts(join(out, 'server-direct')));
    const http = await startGateway({ url: reference.url }, '/mcp', join(out, 'gateway-url.log'));
    try {
      log(`# server scenarios, through the gateway (url: upstream): ${http.url}`);
      await runServerScenarios(tools, http.url, join(out, 'server-gateway-url'));
      columns.set('gateway (url)', readVerdicts(join(out, 'server-gateway-url')));
    } finally {
      await http.stop();
    }
  } finally {
    await reference.stop();
  }
  if (!sources.stdioServer) {
    log('# the reference server no longer has the createMcpServer()/Express shape: no stdio run');
    return columns;
  }
  const stdio = await startGateway({ command: tools.node, args: [sources.tsx, sources.stdioServer], cwd: sources.serverDir }, '/mcp', join(out, 'gateway-command.log'));
  try {
    log(`# server scenarios, through the gateway (command: upstream, stdio): ${stdio.url}`);
    await runServerScenarios(tools, stdio.url, join(out, 'server-gateway-command'));
    columns.set('gateway (command)', readVerdicts(join(out, 'server-gateway-command')));
  } finally {
    await stdio.stop();
  }
  return columns;
}

async function clientRuns(tools, sources, out) {
  log('# client scenarios, direct');
  await runClientScenarios(tools, sources, join(out, 'client-direct'));
  log('# client scenarios, through a gateway per scenario');
  await runClientScenarios(tools, sources, join(out, 'client-gateway'), { gateway: true });
  return new Map([
    ['direct', readVerdicts(join(out, 'client-direct'))],
    ['gateway', readVerdicts(join(out, 'client-gateway'))],
  ]);
}

function section(title, columns) {
  const sums = [...columns].map(([name, verdicts]) => `- ${name}: ${totals(verdicts)}`).join('\n');
  return `### ${title}\n\n${sums}\n\n${table(columns)}`;
}

try {
  const tools = await installTools(cache, log);
  const sources = await prepareSources(cache, src, log);
  if (await ensureBuilt()) log('# built the gateway');
  const out = join(cache, 'results', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(out, { recursive: true });
  const parts = [`## MCP conformance ${SUITE_VERSION}: direct vs through mcp-retrofit (${new Date().toISOString()})\n`];
  if (only !== 'client') parts.push(section('Server scenarios (reference server)', await serverRuns(tools, sources, out)));
  if (only !== 'server') parts.push(section('Client scenarios (reference client)', await clientRuns(tools, sources, out)));
  const report = `${parts.join('\n')}\nResults and logs: ${out}\n`;
  writeFileSync(join(cache, 'results', 'latest.md'), report);
  process.stdout.write(report);
} catch (err) {
  killAll();
  log(err instanceof SetupError ? err.message : `conformance: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
}
