/**
 * Starting and stopping a child the project runs (stdio upstreams, the probe): one process group per child,
 * so the child and everything it starts are signalled together. Wrappers (`npx` → `npm exec` → `sh` → `node`,
 * shell scripts) often do not forward SIGTERM, and a grandchild that outlives them keeps the pipes open: the
 * gateway then waits forever for a stdout that never ends, and a CLI never exits.
 *
 * `stop(graceMs)` closes stdin, sends SIGTERM to the whole group, SIGKILL to the whole group after the grace,
 * and resolves once the leader has exited and its stdio has closed. A member that left the group (setsid)
 * and still holds a pipe cannot be signalled: after a second grace the pipes are destroyed on our side, so
 * nothing here waits on it. Pure Node (no Fastify, no logger): callers log what they like.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { StderrTail, type StderrTailOptions } from './stderr-tail.js';

/** How to start a child. */
export interface SpawnGroupOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The child's whole environment (nothing is inherited beyond it). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Bounds and redaction of the kept stderr lines (see StderrTail). */
  readonly stderr?: StderrTailOptions;
  /**
   * How long what the group writes is still read once it can no longer be asked anything — its leader exited
   * (Node then closes our end of its stdin) or its stdin broke — before the group is stopped and our pipes
   * closed (default 1000 ms; then as long again before SIGKILL).
   */
  readonly orphanGraceMs?: number;
  /** Each complete stderr line, after redaction, as it arrives (for logs). */
  readonly onStderrLine?: (line: string) => void;
  /** What a stderr handler threw (redaction, onStderrLine): it never escapes the stream's data handler. */
  readonly onHandlerError?: (err: unknown) => void;
}

/** Why a group ended: the command could not start (`spawn`), or the leader exited (`exited`). */
export interface GroupExit {
  readonly kind: 'spawn' | 'exited';
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when `stop()` was called before the end. */
  readonly requested: boolean;
  /** `code 1`, `signal SIGKILL`, `spawn ENOENT`: for logs and error messages. */
  readonly reason: string;
  /** The spawn error, for `kind: 'spawn'`. */
  readonly error?: Error;
}

/** A started child leading its own process group. */
export interface ProcessGroup {
  /**
   * The leader; its stdin, stdout and stderr are pipes. stderr is read here (into the tail); the caller reads
   * stdout, since `exited` waits for it to end.
   */
  readonly child: ChildProcessWithoutNullStreams;
  /** The leader's pid, which is also the group id; undefined when the spawn failed. */
  readonly pid: number | undefined;
  /** Resolves once the child runs; rejects with the spawn error (ENOENT, EACCES…). */
  readonly spawned: Promise<void>;
  /** Resolves once, when the leader has exited and its stdio has closed (or the spawn failed). */
  readonly exited: Promise<GroupExit>;
  /** True until `exited` has resolved. */
  readonly alive: boolean;
  /**
   * Closes stdin, SIGTERMs the group, SIGKILLs it after `graceMs`; resolves with `exited`. A later call
   * returns the same promise (its grace is ignored).
   */
  stop(graceMs: number): Promise<GroupExit>;
  /** The last stderr lines (bounded, redacted), `\n`-joined; empty when the child wrote none. */
  stderrTail(): string;
}

const detached = process.platform !== 'win32';

/** Sends `signal` to the group led by `child`; false when nothing was there to receive it. */
function signalGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): boolean {
  const pid = child.pid;
  if (pid === undefined) return false;
  try {
    if (detached) process.kill(-pid, signal);
    else child.kill(signal);
    return true;
  } catch {
    // The group is gone, or the leader left it: the leader itself may still be there.
    return child.exitCode === null && child.signalCode === null ? child.kill(signal) : false;
  }
}

/** Spawns `command` as the leader of a new process group with piped stdio. Never throws. */
export function spawnGroup(options: SpawnGroupOptions): ProcessGroup {
  const tail = new StderrTail(options.stderr);
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: { ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached,
    windowsHide: true,
  });
  let requested = false;
  let done: GroupExit | undefined;
  const timers: NodeJS.Timeout[] = [];
  let resolveExited!: (exit: GroupExit) => void;
  const exited = new Promise<GroupExit>((resolve) => (resolveExited = resolve));
  const finish = (exit: GroupExit): void => {
    if (done) return;
    done = exit;
    for (const t of timers) clearTimeout(t);
    resolveExited(exit);
  };
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  // A caller that only awaits `exited` must not see the rejection as unhandled.
  spawned.catch(() => {});

  child.on('error', (error: NodeJS.ErrnoException) => {
    // Before a pid exists this is a spawn failure; later (a failed kill, stdin trouble) `close` decides.
    if (child.pid === undefined) finish({ kind: 'spawn', code: null, signal: null, requested, reason: `spawn ${error.code ?? error.message}`, error });
  });
  // `close` follows `exit` once stdout and stderr have ended: everything the group wrote has been read.
  child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
    finish({ kind: 'exited', code, signal, requested, reason: signal ? `signal ${signal}` : `code ${String(code)}` });
  });
  const stderrLines = (lines: () => string[]): void => {
    try {
      for (const line of lines()) options.onStderrLine?.(line);
    } catch (err) {
      options.onHandlerError?.(err);
    }
  };
  child.stderr.on('data', (chunk: Buffer) => stderrLines(() => tail.push(chunk)));
  child.stderr.on('end', () => stderrLines(() => tail.end()));
  // Nothing can be asked of the group once its leader exited or its stdin broke: a member that keeps stdout
  // open (a grandchild of a wrapper, a server that closed its stdin) would otherwise hold the session, and its
  // requests, until their timeouts. What the group still writes is read for a grace; then it is stopped as
  // stop() does, without `requested` (its caller hears of an exit it did not ask for).
  /**
   * SIGTERM the group now, SIGKILL it `killMs` later, and `closeMs` after that stop waiting on our pipes: whatever
   * still holds them is outside the group.
   */
  const escalate = (killMs: number, closeMs: number): void => {
    signalGroup(child, 'SIGTERM');
    timers.push(
      setTimeout(() => {
        signalGroup(child, 'SIGKILL');
        timers.push(
          setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
          }, closeMs),
        );
      }, killMs),
    );
  };
  const grace = options.orphanGraceMs ?? 1000;
  let orphaned = false;
  const orphan = (): void => {
    if (done || requested || orphaned) return;
    orphaned = true;
    timers.push(setTimeout(() => escalate(grace, 0), grace));
  };
  child.once('exit', orphan);
  // EPIPE: the child closed its stdin, or is gone. A write error must not crash the process.
  child.stdin.on('error', orphan);

  return {
    child,
    pid: child.pid,
    spawned,
    exited,
    get alive() {
      return done === undefined;
    },
    stop(graceMs) {
      if (done || requested) return exited;
      requested = true;
      child.stdin.end();
      escalate(graceMs, graceMs);
      return exited;
    },
    stderrTail: () => tail.text(),
  };
}
