/**
 * The gateway under test as its own process: the built CLI (`node --expose-gc dist/cli.js --config FILE
 * --port 0`, with MCP_RETROFIT_DEBUG=1), its address read from its `listening on` log line. Its young
 * generation has a fixed size (YOUNG_MB per semi-space): V8 otherwise doubles it under allocation pressure
 * (to 2 x 64 MB on this machine's heap limit) at a moment of its choosing, and keeps it — RSS that steps up
 * by 64 MB once, with the heap in use flat, is no leak, but it hides what a leak would add. A crash is then
 * a crash of that process (seen, with its exit code and last output), never of the test worker; its RSS is
 * read from /proc; its counts come from its debug endpoint. It is killed when the suite ends, fails, or the
 * worker exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO } from '../helpers/stdio-gateway.js';

/** What GET /debug/retrofit answers (src/http/server/debug.ts). */
export interface DebugSnapshot {
  readonly pid: number;
  readonly gc: boolean;
  readonly memory: { readonly rss: number; readonly heapUsed: number; readonly heapTotal: number; readonly spaces: Readonly<Record<string, number>>; readonly external: number; readonly arrayBuffers: number };
  readonly timers: number;
  readonly timersByDelay: Readonly<Record<string, number>>;
  readonly resources: Readonly<Record<string, number>>;
  readonly listeners: { readonly process: number; readonly server: number };
  readonly inflight: number;
  readonly proxiedSessions: number;
  readonly proxiedPending: number;
  readonly metricSeries: number;
  readonly upstreams: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

export interface GatewayProcess {
  readonly origin: string;
  readonly pid: number;
  /** Resolves when the process ended, with how. */
  readonly exited: Promise<string>;
  alive(): boolean;
  /** The last output (stdout and stderr, interleaved as read), for a failure report. */
  tail(): string;
  /** Process warnings and error log lines seen so far (MaxListenersExceededWarning, unhandled errors, …): how many, and the last ones. */
  complaints(): { readonly total: number; readonly last: readonly string[] };
  /** The debug endpoint's counts (`gc`: collect first). */
  debug(gc?: boolean): Promise<DebugSnapshot>;
  /** GET /healthz answered 200 within `ms`. */
  healthy(ms?: number): Promise<boolean>;
  /** VmRSS from /proc (bytes). */
  rss(): number;
  /** CPU seconds the process used so far (user + system, from /proc/PID/stat). */
  cpuSeconds(): number;
  /** VmHWM from /proc: the highest RSS since the start or the last resetPeak() (bytes). */
  peakRss(): number;
  /** Start measuring the peak afresh (Linux: `5` into /proc/PID/clear_refs); false when not allowed. */
  resetPeak(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** GET a path with a connection of its own (no keep-alive socket left in the gateway's counts). */
export function getText(url: string, ms: number): Promise<{ status: number; text: string }> {
  return new Promise((resolveGet, reject) => {
    const req = get(url, { agent: false, timeout: ms }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.once('end', () => resolveGet({ status: res.statusCode ?? 0, text }));
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${ms} ms`)));
    req.once('error', reject);
  });
}

/** A `kB` field of /proc/PID/status, in bytes (0 once the process is gone). */
function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

const TAIL_BYTES = 64 * 1024;
const COMPLAINT = /Warning|"level":(50|60)|Uncaught|FATAL|heap out of memory/;

/** The gateway's semi-space size (MB), min and max: its young generation is 2 x this from the start. */
const YOUNG_MB = 16;

export async function startGatewayProcess(configFile: string): Promise<GatewayProcess> {
  const young = [`--min-semi-space-size=${YOUNG_MB}`, `--max-semi-space-size=${YOUNG_MB}`];
  const child = spawn(process.execPath, ['--expose-gc', ...young, ...(process.env.FAULT_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.FAULT_PROF] : []), resolve(REPO, 'dist/cli.js'), '--config', configFile, '--host', '127.0.0.1', '--port', '0'], {
    cwd: REPO,
    env: { ...process.env, MCP_RETROFIT_DEBUG: '1', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const exited = new Promise<string>((done) => child.once('exit', (code, signal) => (live.delete(child), done(signal ?? `code ${code}`))));
  let tail = '';
  const complaints: string[] = [];
  let total = 0;
  const keep = (line: string): void => {
    tail = (tail + line + '\n').slice(-TAIL_BYTES);
    if (!COMPLAINT.test(line)) return;
    total += 1;
    complaints.push(line.slice(0, 2000));
    if (complaints.length > 50) complaints.shift();
  };
  createInterface({ input: child.stderr! }).on('line', keep);
  const lines = createInterface({ input: child.stdout! });
  const listening = new Promise<string>((found, failed) => {
    lines.on('line', (line) => {
      keep(line);
      if (!line.includes('listening on')) return;
      const address = (JSON.parse(line) as { address?: unknown }).address;
      if (typeof address === 'string') found(address);
    });
    void exited.then((how) => failed(new Error(`the gateway exited (${how}) before listening:\n${tail}`)));
  });
  const origin = await listening;
  const pid = child.pid!;
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;

  return {
    origin,
    pid,
    exited,
    alive,
    tail: () => tail,
    complaints: () => ({ total, last: complaints }),
    async debug(gc = false) {
      const { status, text } = await getText(`${origin}/debug/retrofit${gc ? '?gc=1' : ''}`, 10_000);
      if (status !== 200) throw new Error(`debug endpoint: ${status} ${text}`);
      return JSON.parse(text) as DebugSnapshot;
    },
    async healthy(ms = 5_000) {
      if (!alive()) return false;
      try {
        return (await getText(`${origin}/healthz`, ms)).status === 200;
      } catch {
        return false;
      }
    },
    rss: () => procStatus(pid, 'VmRSS'),
    cpuSeconds() {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // utime and stime are fields 14 and 15 of stat (12 and 13 after the command), in clock ticks (100 Hz on Linux).
        return (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        return 0;
      }
    },
    peakRss: () => procStatus(pid, 'VmHWM'),
    resetPeak() {
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        return true;
      } catch {
        return false;
      }
    },
    async stop(graceMs = 5_000) {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
