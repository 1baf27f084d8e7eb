/**
 * Starting the processes under test: our bench upstreams and the built gateway (`node dist/cli.js
 * --config <generated yaml> --port 0`, bound address read back from its `listening on` log line).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { start } from './procs.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmpRoots = [];

/** A scratch directory removed at exit. */
export function scratch(prefix = 'mcp-retrofit-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tmpRoots.push(dir);
  return dir;
}
process.on('exit', () => {
  for (const dir of tmpRoots) rmSync(dir, { recursive: true, force: true });
});

/** Start bench/servers/<name>.js [args]; resolves { url, pid, proc } once it prints its address. */
export async function startUpstream(name, env = {}, args = []) {
  const proc = start(process.execPath, [join(ROOT, 'bench', 'servers', `${name}.js`), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  const m = await proc.waitFor(/listening (http:\/\/\S+)/);
  return { url: m[1], pid: proc.child.pid, proc, stop: () => proc.stop() };
}

/**
 * Start the built gateway in front of `upstreams` (the YAML `upstreams:` map; YAML accepts JSON).
 * Output goes to a log file (see procs.start). `nodeArgs` lets the profiler add --cpu-prof; `root` is the
 * checkout whose dist/ runs (another build, for --compare).
 */
export async function startGateway(upstreams, { nodeArgs = [], env = {}, extra = {}, root = ROOT } = {}) {
  const dir = scratch('mcp-retrofit-gw-');
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, JSON.stringify({ listen: { host: '127.0.0.1', port: 0 }, ...extra, upstreams }, null, 2));
  const logFile = join(dir, 'gateway.log');
  const proc = start(process.execPath, [...nodeArgs, join(root, 'dist', 'cli.js'), '--config', config, '--port', '0'], {
    cwd: dir,
    env: { ...process.env, ...env },
    logFile,
  });
  const m = await proc.waitFor(/listening on (http:\/\/[^"\s]+)/);
  return { address: m[1], pid: proc.child.pid, proc, dir, logFile, stop: () => proc.stop(15_000) };
}

/**
 * `--compare=DIR`: another checkout's built gateway (DIR/dist/cli.js, e.g. a `git worktree` of an older
 * commit with `npm ci && npm run build` done), measured in the same run. Resolves { root, label } or undefined.
 */
export function compareBuild(dir) {
  if (!dir) return undefined;
  if (!existsSync(join(dir, 'dist', 'cli.js'))) throw new Error(`--compare=${dir}: no dist/cli.js there (run npm ci && npm run build in it)`);
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: the directory names it
  }
  return { root: dir, label: `before (${commit})` };
}
