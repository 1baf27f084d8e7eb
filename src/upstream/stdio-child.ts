/**
 * One stdio upstream child process: spawn, NDJSON in and out, stderr to the logs, and a bounded kill.
 * The child leads its own process group so that wrappers (`npx`, shell scripts) take their grandchildren
 * with them when killed: no orphans.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Logger } from '../log.js';
import { createLineSplitter, type OverlongLine } from './ndjson.js';

/** Why a child stopped: it could not start (`spawn`) or it ended (`exited`, including when we killed it). */
export interface ChildExit {
  readonly kind: 'spawn' | 'exited';
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when the gateway asked it to stop (DELETE, idle timeout, shutdown). */
  readonly requested: boolean;
  /** Human-readable cause for logs and JSON-RPC errors, e.g. `code 1`, `signal SIGKILL`, `spawn ENOENT`. */
  readonly reason: string;
  readonly error?: Error;
}

export interface StdioChildOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Longest accepted stdout line (bytes). */
  readonly maxLineBytes: number;
  /** Grace period between SIGTERM and SIGKILL. */
  readonly killTimeoutMs: number;
  /** Bound to upstream and session. */
  readonly log: Logger;
  /** Every non-empty stdout line that may be a JSON-RPC message (it starts with `{` or `[`), without its terminator. */
  readonly onLine: (line: string) => void;
  /** A stdout line over `maxLineBytes` (dropped). */
  readonly onOverlong: (line: OverlongLine) => void;
  /** Called exactly once, after the process is gone and its stdout drained. */
  readonly onExit: (exit: ChildExit) => void;
}

const STDERR_MAX_LINE = 64 * 1024;
const LOG_SAMPLE = 200;
/** The last stderr lines kept to explain a failure: at most this many… */
const STDERR_TAIL_LINES = 10;
/** …and this many characters of each. */
const STDERR_TAIL_CHARS = 400;

/** A running (or failed) child. `pid` is undefined when the spawn failed. */
export class StdioChild {
  readonly pid: number | undefined;
  /** Resolves with the exit once the child is gone. */
  readonly exited: Promise<ChildExit>;
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly options: StdioChildOptions;
  private done: ChildExit | undefined;
  private stopRequested = false;
  private killTimer: NodeJS.Timeout | undefined;
  private readonly tail: string[] = [];

  constructor(options: StdioChildOptions) {
    this.options = options;
    const { log } = options;
    let resolveExited!: (exit: ChildExit) => void;
    this.exited = new Promise((resolve) => (resolveExited = resolve));
    const finish = (exit: ChildExit): void => {
      if (this.done) return;
      this.done = exit;
      if (this.killTimer) clearTimeout(this.killTimer);
      options.onExit(exit);
      resolveExited(exit);
    };

    this.proc = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.pid = this.proc.pid;

    this.proc.on('error', (error: NodeJS.ErrnoException) => {
      // Before a pid exists this is a spawn failure; afterwards (kill/stdin trouble) the close event decides.
      if (this.proc.pid === undefined) {
        finish({ kind: 'spawn', code: null, signal: null, requested: this.stopRequested, reason: `spawn ${error.code ?? error.message}`, error });
      } else {
        log.warn({ err: error }, 'upstream child process error');
      }
    });
    // `close` comes after stdout has drained, so responses already written are delivered before pending requests fail.
    this.proc.on('close', (code, signal) => {
      finish({ kind: 'exited', code, signal, requested: this.stopRequested, reason: signal ? `signal ${signal}` : `code ${String(code)}` });
    });

    const stdout = createLineSplitter({
      maxLineBytes: options.maxLineBytes,
      onLine: (line) => this.line(line),
      onOverlong: (line) => {
        log.warn({ bytes: line.bytes, limit: options.maxLineBytes, head: line.head.slice(0, LOG_SAMPLE) }, 'over-long line on upstream stdout dropped');
        options.onOverlong(line);
      },
    });
    this.proc.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    this.proc.stdout.on('end', () => stdout.end());

    const stderr = createLineSplitter({
      maxLineBytes: STDERR_MAX_LINE,
      onLine: (line) => {
        this.remember(line);
        log.info({ stream: 'stderr', line }, 'upstream stderr');
      },
      onOverlong: (line) => {
        this.remember(line.head);
        log.info({ stream: 'stderr', line: line.head, bytes: line.bytes }, 'upstream stderr (truncated)');
      },
    });
    this.proc.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    this.proc.stderr.on('end', () => stderr.end());
    // EPIPE after the child died: the close event reports the death; don't crash the gateway.
    this.proc.stdin.on('error', (err) => log.debug({ err }, 'upstream stdin closed'));
  }

  /** The last lines the child wrote to stderr (bounded), oldest first, joined by newlines; '' when none. */
  stderrTail(): string {
    return this.tail.join('\n');
  }

  private remember(line: string): void {
    this.tail.push(line.length > STDERR_TAIL_CHARS ? `${line.slice(0, STDERR_TAIL_CHARS)}…` : line);
    if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
  }

  /** True until the child has exited or failed to spawn. */
  get alive(): boolean {
    return this.done === undefined;
  }

  /** Write one message (JSON text without line breaks) as one line. Returns false when the child is gone. */
  write(json: string): boolean {
    if (this.done || this.proc.stdin.destroyed || !this.proc.stdin.writable) return false;
    this.proc.stdin.write(`${json}\n`);
    return true;
  }

  /** Stop reading the child's stdout (it blocks once the pipe fills) until resume(). */
  pause(): void {
    this.proc.stdout.pause();
  }

  resume(): void {
    this.proc.stdout.resume();
  }

  /** Stop the child: close stdin and SIGTERM its group, SIGKILL after the grace period. Resolves on exit. */
  stop(): Promise<ChildExit> {
    if (this.done) return this.exited;
    if (!this.stopRequested) {
      this.stopRequested = true;
      this.proc.stdin.end();
      this.signal('SIGTERM');
      this.killTimer = setTimeout(() => this.signal('SIGKILL'), this.options.killTimeoutMs);
    }
    return this.exited;
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.proc.pid;
    if (pid === undefined || this.done) return;
    try {
      if (process.platform === 'win32') this.proc.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // The group may already be gone or the child may have left it: signal the child itself.
      this.proc.kill(signal);
    }
  }

  private line(line: string): void {
    // Servers print banners and debug output to stdout: a line that cannot be JSON is skipped here, cheaply;
    // one that starts like JSON but does not parse is skipped by the session that parses it.
    const first = line.trimStart().charCodeAt(0);
    if (first !== 0x7b && first !== 0x5b) {
      this.options.log.warn({ line: line.slice(0, LOG_SAMPLE), bytes: Buffer.byteLength(line) }, 'non-JSON line on upstream stdout skipped');
      return;
    }
    this.options.onLine(line);
  }
}
