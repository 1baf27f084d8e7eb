// `npm run conformance:modern [-- --src DIR|GIT_URL] [-- --scenario NAME] [-- --pool-size N]`: the 2026-07-28
// server scenarios of the official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12,
// `--requirements 2026-07-28`: the 37 scored scenarios and the 13 it runs unscored), against
//   direct:  the suite's reference server, which answers 2026-07-28 itself (Streamable HTTP, Express);
//   gateway: the gateway serving a 2026-07-28 client in front of the same reference server on stdio as a
//            `command:` upstream, where it speaks the session revisions: its createMcpServer() (derived from
//            the checkout at run time, as run.mjs does) plus, from modern-fixtures.mjs, the tools, prompt and
//            resource the reference serves only on its 2026-07-28 path, in their session-revision form.
// Prints every scenario's verdict both ways (scored or not, and why not) and the checks that fail or warn.
// `--pool-size N` runs the gateway with `stateless: {poolSize: N}` (default: the gateway's own, 4).
//
// The npm package ships only the bundled CLI; the reference server is a TypeScript source of the suite's
// repository (examples/servers/typescript/everything-server.ts). Point the run at a checkout of
// modelcontextprotocol/conformance whose reference server has the 2026-07-28 path (main, 0.2.0-alpha.11 or
// later; the alphas are not tagged): --src DIR or CONFORMANCE_MODERN_SRC (a git URL is cloned into the cache).
// The suite and the server's dependencies go into <cache>/modern (CONFORMANCE_CACHE, default
// node_modules/.cache/mcp-retrofit-conformance), results and logs into <cache>/results/modern-<time>/, the
// report also into <cache>/results/latest-modern.md. Runs on the Node that runs it (22.12 or later).
// Exit 0 when both runs completed (differing verdicts are the report), 1 when one could not run.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../../bench/lib/build.js';
import { killAll, runToEnd, start } from '../../bench/lib/procs.js';
import { ROOT } from '../../bench/lib/servers.js';
import { readVerdicts } from './report.mjs';
import { startGateway, startReference } from './suite.mjs';

export const MODERN_SUITE_VERSION = '0.2.0-alpha.12';
const REVISION = '2026-07-28';
const LOOPBACK = new URL('./loopback.mjs', import.meta.url);
const FIXTURES = fileURLToPath(new URL('./modern-fixtures.mjs', import.meta.url));
// The reference server builds its McpServer in createMcpServer() and serves it over Express below this line.
const EXPRESS_MARKER = '// ===== EXPRESS APP =====';

class SetupError extends Error {}

const USAGE = `usage: npm run conformance:modern [-- --src DIR|GIT_URL] [-- --scenario NAME] [-- --pool-size N]

The reference server is a TypeScript source of the suite's repository, not in the npm package. Use a checkout
whose examples/servers/typescript/everything-server.ts answers 2026-07-28 (main; 0.2.0-alpha.11 or later):

  git clone --depth 1 https://github.com/modelcontextprotocol/conformance.git ../conformance-main
  CONFORMANCE_MODERN_SRC=../conformance-main npm run conformance:modern`;

const args = process.argv.slice(2);
const value = (flag) => {
  const i = args.indexOf(flag);
  return i === -1 ? undefined : args[i + 1];
};
const FLAGS = ['--src', '--scenario', '--pool-size'];
const poolSize = value('--pool-size') === undefined ? undefined : Number(value('--pool-size'));
if (
  args.some((a, i) => a.startsWith('--') && !FLAGS.includes(a) && !FLAGS.includes(args[i - 1] ?? '')) ||
  (poolSize !== undefined && !(Number.isInteger(poolSize) && poolSize > 0))
) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const src = value('--src') ?? process.env.CONFORMANCE_MODERN_SRC;
const scenario = value('--scenario');
const log = (line) => process.stderr.write(`${line}\n`);
const cache = process.env.CONFORMANCE_CACHE ?? join(ROOT, 'node_modules', '.cache', 'mcp-retrofit-conformance');

function npm(argv, cwd) {
  // Under `npm run`, npm names itself; otherwise the npm on PATH.
  const cli = process.env.npm_execpath;
  const [command, full] = cli && cli.endsWith('.js') ? [process.execPath, [cli, ...argv]] : ['npm', argv];
  return runToEnd(command, full, { cwd, timeoutMs: 600_000 });
}

const versionOf = (dir, name) => {
  const file = join(dir, 'node_modules', name, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
};

/** The suite CLI at MODERN_SUITE_VERSION, installed once into <cache>/modern/suite; its requirement sets beside it. */
async function installSuite(dir) {
  mkdirSync(dir, { recursive: true });
  if (versionOf(dir, '@modelcontextprotocol/conformance') !== MODERN_SUITE_VERSION) {
    log(`# installing @modelcontextprotocol/conformance@${MODERN_SUITE_VERSION} into ${dir}`);
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
    await npm(['install', '--no-audit', '--no-fund', '--no-save', `@modelcontextprotocol/conformance@${MODERN_SUITE_VERSION}`], dir);
  }
  const root = join(dir, 'node_modules', '@modelcontextprotocol', 'conformance');
  return { cli: join(root, 'dist', 'index.js'), requirements: join(root, 'requirements', `${REVISION}.yaml`) };
}

const isUrl = (s) => /^(https?:\/\/|git@|ssh:\/\/)/.test(s) || s.endsWith('.git');

async function checkout(dir) {
  if (!src) throw new SetupError(USAGE);
  if (!isUrl(src)) return resolve(src);
  const into = join(dir, 'checkout');
  if (!existsSync(join(into, 'package.json'))) {
    log(`# cloning ${src}`);
    await runToEnd('git', ['clone', '--quiet', '--depth', '1', src, into], { timeoutMs: 600_000 });
  }
  return into;
}

const hash = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The stdio server: the reference's createMcpServer() (its file up to the Express app) with the 2026-07-28-only
 * fixtures added, on the SDK's StdioServerTransport; bundled ahead with the esbuild that tsx brings, so that a
 * pooled session the gateway starts costs a Node start (~0.2 s), not a TypeScript compile (~0.7–1.5 s) that
 * no native server pays. tsx runs the TypeScript when esbuild is not there.
 */
async function writeStdioServer(source, serverDir, tsx) {
  const cut = source.indexOf(EXPRESS_MARKER);
  if (cut === -1 || !source.includes('function createMcpServer(')) {
    throw new SetupError('the reference server no longer has the createMcpServer()/Express shape this run derives its stdio server from');
  }
  const entry = join(serverDir, 'everything-server.modern-stdio.ts');
  const tail = [
    "import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';",
    "import * as retrofitSdkTypes from '@modelcontextprotocol/sdk/types.js';",
    `import { addModernFixtures } from ${JSON.stringify(FIXTURES)};`,
    "// stdout carries the protocol: the tools' console.log lines go to stderr.",
    'console.log = (...args: unknown[]) => console.error(...args);',
    'const retrofitServer = createMcpServer();',
    'addModernFixtures(retrofitServer, retrofitSdkTypes);',
    'await retrofitServer.connect(new StdioServerTransport());',
  ];
  writeFileSync(entry, `${source.slice(0, cut)}\n${tail.join('\n')}\n`);
  let esbuild;
  try {
    esbuild = createRequire(join(serverDir, 'package.json'))('esbuild');
  } catch {
    log('# no esbuild beside the reference server: the stdio server runs under tsx');
    return [tsx, entry];
  }
  const bundle = join(serverDir, 'everything-server.modern-stdio.mjs');
  // The packages stay imports, resolved from the server's node_modules: one SDK, one zod.
  await esbuild.build({ entryPoints: [entry], outfile: bundle, bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node22', tsconfigRaw: '{}', logLevel: 'error' });
  return [bundle];
}

/**
 * The reference server's folder copied into <cache>/modern/server (nothing is installed into the checkout), its
 * dependencies installed, and a stdio server derived from it.
 */
async function prepareServer(dir) {
  const from = await checkout(dir);
  const file = join(from, 'examples', 'servers', 'typescript', 'everything-server.ts');
  if (!existsSync(file)) throw new SetupError(`${from} is not a conformance checkout (no examples/servers/typescript/everything-server.ts).\n\n${USAGE}`);
  const source = readFileSync(file, 'utf8');
  if (!source.includes("'server/discover'")) throw new SetupError(`${file} does not answer 2026-07-28 (no server/discover): check out main (0.2.0-alpha.11 or later).\n\n${USAGE}`);
  const version = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')).version;
  if (!String(version).startsWith('0.2.0-')) log(`# warning: the checkout is conformance ${version}; the suite is ${MODERN_SUITE_VERSION}`);
  const serverDir = join(dir, 'server');
  cpSync(join(from, 'examples', 'servers', 'typescript'), serverDir, { recursive: true, filter: (path) => !path.includes('/node_modules') });
  const stamp = join(serverDir, 'node_modules', '.retrofit-lock-hash');
  const want = hash(join(serverDir, 'package-lock.json'));
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    log(`# npm ci in ${serverDir}`);
    await npm(['ci', '--no-audit', '--no-fund'], serverDir);
    writeFileSync(stamp, want);
  }
  const tsx = join(serverDir, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  return { version, serverDir, tsx, server: join(serverDir, 'everything-server.ts'), stdioArgs: await writeStdioServer(source, serverDir, tsx) };
}

/** The suite's server scenarios of the revision (or one) against `url`; results under `out`. */
async function runScenarios(suite, url, out) {
  mkdirSync(out, { recursive: true });
  const which = scenario ? ['--scenario', scenario, '--spec-version', REVISION] : ['--requirements', REVISION];
  const proc = start(process.execPath, ['--import', LOOPBACK.href, suite.cli, 'server', '--url', url, ...which, '-o', out], { logFile: `${out}.log` });
  return proc.exited;
}

/** scenario → 'scored' or `not scored (<reason>)`, from the requirement set the package ships. */
function scoring(file) {
  const text = readFileSync(file, 'utf8');
  const section = (name) => text.match(new RegExp(`^${name}:\\n((?:[ \\t].*\\n|\\n)*)`, 'm'))?.[1] ?? '';
  const marks = new Map();
  for (const m of section('server').matchAll(/^\s*-\s+(\S+)\s*$/gm)) marks.set(m[1], 'scored');
  for (const m of section('not_scored').matchAll(/-\s+scenario:\s*(\S+)\s*\n\s*leg:\s*(\S+)\s*\n\s*reason:\s*(\S+)/g)) {
    if (m[2] === 'server') marks.set(m[1], `not scored (${m[3]})`);
  }
  return marks;
}

/** The suite's own verdict: a scenario passes when none of its checks is a FAILURE (warnings are reported). */
function verdict(v) {
  if (v === undefined) return 'not run';
  const total = v.passed + v.failed + v.warnings;
  if (total === 0) return 'n/a (no checks)';
  const warn = v.warnings > 0 ? `, ${v.warnings} warn` : '';
  return `${v.failed === 0 ? 'pass' : 'FAIL'} (${v.passed}/${total}${warn})`;
}

function sum(verdicts) {
  let passed = 0;
  let checks = 0;
  let failed = 0;
  let warnings = 0;
  for (const v of verdicts.values()) {
    if (v.failed === 0 && v.passed + v.warnings > 0) passed++;
    checks += v.passed;
    failed += v.failed;
    warnings += v.warnings;
  }
  return `${passed}/${verdicts.size} scenarios pass; checks: ${checks} passed, ${failed} failed, ${warnings} warnings`;
}

function report(columns, marks) {
  const [direct, gateway] = [...columns.values()];
  const names = [...new Set([...direct.keys(), ...gateway.keys()])];
  const order = [...marks.keys()];
  const rank = (name) => (order.includes(name) ? order.indexOf(name) : order.length);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const failing = (v) => [...new Set(v?.failures ?? [])].join(', ') || '–';
  const lines = [
    '| scenario | scoring | direct | through the gateway | verdicts differ | failing/warning checks, direct | failing/warning checks, gateway |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const name of names) {
    const d = verdict(direct.get(name));
    const g = verdict(gateway.get(name));
    lines.push(`| ${name} | ${marks.get(name) ?? '–'} | ${d} | ${g} | ${d.split(' ')[0] !== g.split(' ')[0] ? '**yes**' : ''} | ${failing(direct.get(name))} | ${failing(gateway.get(name))} |`);
  }
  const scored = (verdicts) => new Map([...verdicts].filter(([name]) => marks.get(name) === 'scored'));
  const sums = [...columns].map(([name, verdicts]) => `- ${name}: scored: ${sum(scored(verdicts))}; all: ${sum(verdicts)}`);
  return `${sums.join('\n')}\n\n${lines.join('\n')}\n`;
}

try {
  const dir = join(cache, 'modern');
  const suite = await installSuite(join(dir, 'suite'));
  const sources = await prepareServer(dir);
  if (await ensureBuilt()) log('# built the gateway');
  const out = join(cache, 'results', `modern-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(out, { recursive: true });
  const columns = new Map();

  const reference = await startReference({ node: process.execPath }, sources, join(out, 'reference-server.log'));
  try {
    log(`# ${REVISION} server scenarios, direct: ${reference.url}`);
    await runScenarios(suite, reference.url, join(out, 'direct'));
    columns.set('direct (reference server, HTTP)', readVerdicts(join(out, 'direct')));
  } finally {
    await reference.stop();
  }

  const upstream = {
    command: process.execPath,
    args: sources.stdioArgs,
    cwd: sources.serverDir,
    ...(poolSize === undefined ? {} : { stateless: { poolSize } }),
  };
  const gateway = await startGateway(upstream, '/mcp', join(out, 'gateway.log'));
  const label = `gateway (reference server, stdio${poolSize === undefined ? '' : `, poolSize ${poolSize}`})`;
  try {
    log(`# ${REVISION} server scenarios, through the gateway (command: upstream, stdio): ${gateway.url}`);
    await runScenarios(suite, gateway.url, join(out, 'gateway'));
    columns.set(label, readVerdicts(join(out, 'gateway')));
  } finally {
    await gateway.stop();
  }

  const title = `## MCP conformance ${MODERN_SUITE_VERSION}, ${REVISION} server scenarios: direct vs through mcp-retrofit (${new Date().toISOString()})`;
  const text = `${title}\n\nReference server: conformance ${sources.version} checkout.\n\n${report(columns, scoring(suite.requirements))}\nResults and logs: ${out}\n`;
  writeFileSync(join(cache, 'results', 'latest-modern.md'), text);
  process.stdout.write(text);
} catch (err) {
  killAll();
  log(err instanceof SetupError ? err.message : `conformance:modern: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
}
