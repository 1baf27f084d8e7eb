/**
 * Child processes for the bench: every one is registered so it is killed at the end, on error and on
 * SIGINT/SIGTERM. Children run in their own process group (detached) so a bridge's own children
 * (stdio servers, npx shims) go with it; only groups this bench started are signalled.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const live = new Set();

function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Kill every child still running (sync: safe in an 'exit' handler). */
export function killAll(signal = 'SIGKILL') {
  for (const child of live) killGroup(child, signal);
}

process.on('exit', () => killAll());
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/**
 * Start a child. Returns { child, lines, waitFor(regex, ms), stop() }; stdout/stderr lines are kept (last 200)
 * so a failure can show what the child said. With `logFile`, output goes to that file instead of through
 * this process (a chatty gateway under load must not make the bench process compete for CPU); waitFor then
 * polls the file.
 */
export function start(command, args, options = {}) {
  const { logFile, ...spawnOptions } = options;
  const fd = logFile ? openSync(logFile, 'w') : undefined;
  const stdio = fd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', fd, fd];
  const child = spawn(command, args, { stdio, detached: true, ...spawnOptions });
  if (fd !== undefined) closeSync(fd);
  live.add(child);
  const lines = [];
  const waiters = new Set();
  if (logFile) {
    const poll = setInterval(() => {
      if (waiters.size === 0) return;
      const text = readFileSync(logFile, 'utf8');
      lines.length = 0;
      lines.push(...text.split('\n').slice(-200));
      for (const w of waiters) {
        const m = w.regex.exec(text);
        if (m) {
          waiters.delete(w);
          w.resolve(m);
        }
      }
    }, 25);
    child.once('exit', () => clearInterval(poll));
  }
  const onLine = (line) => {
    lines.push(line);
    if (lines.length > 200) lines.shift();
    for (const w of waiters) {
      const m = w.regex.exec(line);
      if (m) {
        waiters.delete(w);
        w.resolve(m);
      }
    }
  };
  if (!logFile) {
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  void exited.then((how) => {
    live.delete(child);
    for (const w of waiters) w.reject(new Error(`${command} exited (${how.code ?? how.signal}) before printing ${w.regex}:\n${lines.slice(-20).join('\n')}`));
    waiters.clear();
  });
  return {
    child,
    lines,
    exited,
    /** Resolve with the match of the first line matching `regex`, or reject after `ms`. */
    waitFor(regex, ms = 20_000) {
      if (logFile) lines.splice(0, lines.length, ...readFileSync(logFile, 'utf8').split('\n'));
      for (const line of lines) {
        const m = regex.exec(line);
        if (m) return Promise.resolve(m);
      }
      return new Promise((resolve, reject) => {
        const w = { regex, resolve, reject };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`${command}: no line matching ${regex} within ${ms} ms:\n${lines.slice(-20).join('\n')}`));
        }, ms);
        w.resolve = (m) => (clearTimeout(timer), resolve(m));
        w.reject = (e) => (clearTimeout(timer), reject(e));
        waiters.add(w);
      });
    },
    /** SIGTERM the group, SIGKILL after `graceMs`; resolves when the child has exited. */
    async stop(graceMs = 3_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
      const how = await exited;
      clearTimeout(timer);
      // The leader is gone; make sure nothing of its group lingers.
      killGroup(child, 'SIGKILL');
      return how;
    },
  };
}

/** Run a child to completion and return its stdout (rejects on a non-zero exit). */
export function runToEnd(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
    live.add(child);
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    const timer = options.timeoutMs ? setTimeout(() => killGroup(child, 'SIGKILL'), options.timeoutMs) : undefined;
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      const stdout = Buffer.concat(out).toString('utf8');
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}: ${Buffer.concat(err).toString('utf8').slice(-2000)}`));
    });
  });
}
