/**
 * The other stdio→HTTP bridges, installed for the bench only into a temp directory (never the project):
 * `npm install --prefix <tmp>/mcp-retrofit-bench-bridges supergateway mcp-proxy`, reused by later runs.
 * Each is started on a port handed out by the kernel (neither can report a port-0 bind) and polled until
 * it accepts connections.
 */
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd, start } from './procs.js';
import { scratch } from './servers.js';
import { freePort, tcpOpen, until } from './sys.js';

const DIR = join(tmpdir(), 'mcp-retrofit-bench-bridges');
const BINS = { supergateway: 'supergateway/dist/index.js', 'mcp-proxy': 'mcp-proxy/dist/bin/mcp-proxy.mjs' };

function version(name) {
  return JSON.parse(readFileSync(join(DIR, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** { bins: { name: path }, versions } or { skip: reason }. */
export async function ensureBridges() {
  const missing = Object.entries(BINS).filter(([, bin]) => !existsSync(join(DIR, 'node_modules', bin)));
  if (missing.length > 0) {
    try {
      console.error(`# installing ${Object.keys(BINS).join(', ')} into ${DIR}`);
      await runToEnd('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', DIR, ...Object.keys(BINS)], { timeoutMs: 300_000 });
    } catch (err) {
      return { skip: `npm install of the bridges failed: ${err.message.split('\n')[0]}` };
    }
  }
  const bins = {};
  const versions = {};
  for (const [name, bin] of Object.entries(BINS)) {
    const path = join(DIR, 'node_modules', bin);
    if (!existsSync(path)) return { skip: `${name} not found after install (${path})` };
    bins[name] = path;
    versions[name] = version(name);
  }
  return { bins, versions };
}


/** Start bridge `name` in front of `command args`; resolves { url, pid, stop }. */
export async function startBridge(name, bin, command, args) {
  const port = await freePort();
  const cmdline = [command, ...args].map((a) => JSON.stringify(a)).join(' ');
  const argv =
    name === 'supergateway'
      ? [bin, '--stdio', cmdline, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--logLevel', 'none']
      : [bin, '--port', String(port), '--server', 'stream', '--', command, ...args];
  // Output to a file, like the gateway's: the bench process must not spend CPU reading it.
  const proc = start(process.execPath, argv, { env: { ...process.env }, logFile: join(scratch(`mcp-retrofit-${name}-`), 'out.log') });
  await until(() => tcpOpen(port), 20_000, `${name} to listen`);
  return { url: `http://127.0.0.1:${port}/mcp`, pid: proc.child.pid, proc, stop: () => proc.stop(5_000) };
}
