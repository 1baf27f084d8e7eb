import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { captureLogger } from '../../helpers/stdio-gateway.js';
import { StdioChild, type ChildExit } from '../../../src/upstream/stdio-child.js';

const log = createLogger({ level: 'silent' });
const children: StdioChild[] = [];

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.stop()));
});

/** Running = exists and is not a zombie waiting for a reaper (PID 1 in a container may never reap). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

function start(script: string, killTimeoutMs = 5_000): { child: StdioChild; messages: unknown[]; exit: Promise<ChildExit> } {
  const messages: unknown[] = [];
  let resolveExit!: (e: ChildExit) => void;
  const exit = new Promise<ChildExit>((r) => (resolveExit = r));
  const child = new StdioChild({
    command: process.execPath,
    args: ['-e', script],
    env: { PATH: process.env.PATH ?? '' },
    cwd: process.cwd(),
    maxLineBytes: 1024,
    killTimeoutMs,
    log,
    onLine: (line) => messages.push(JSON.parse(line.toString())),
    onOverlong: () => {},
    onExit: resolveExit,
  });
  children.push(child);
  return { child, messages, exit };
}

describe('StdioChild', () => {
  it('round-trips NDJSON and reports a natural exit with its code', async () => {
    const { child, messages, exit } = start(`process.stdin.on('data', (d) => { process.stdout.write(d); process.exit(3); });`);
    expect(child.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }))).toBe('written');
    expect(await exit).toMatchObject({ kind: 'exited', code: 3, requested: false, reason: 'code 3' });
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(child.alive).toBe(false);
    expect(child.write('{}')).toBe('gone');
  });

  it('reports a spawn failure without a pid', async () => {
    const messages: unknown[] = [];
    const exited = new Promise<ChildExit>((onExit) => {
      children.push(new StdioChild({ command: 'mcp-retrofit-missing-binary', args: [], env: { PATH: '/nonexistent' }, cwd: process.cwd(), maxLineBytes: 10, killTimeoutMs: 10, log, onLine: (line) => messages.push(line), onOverlong: () => {}, onExit }));
    });
    expect(await exited).toMatchObject({ kind: 'spawn', reason: 'spawn ENOENT' });
    expect(children.at(-1)!.pid).toBeUndefined();
  });

  it('escalates to SIGKILL for a child that ignores SIGTERM, and takes its process group along', async () => {
    const script = `
      const { spawn } = require('node:child_process');
      process.on('SIGTERM', () => {});
      const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      process.stdout.write(JSON.stringify({ grandchild: grandchild.pid }) + '\\n');
      setInterval(() => {}, 1000);`;
    const { child, messages } = start(script, 200);
    await vi.waitFor(() => expect(messages).toHaveLength(1));
    const grandchild = (messages[0] as { grandchild: number }).grandchild;
    expect(running(grandchild)).toBe(true);
    const exit = await child.stop();
    expect(exit).toMatchObject({ kind: 'exited', signal: 'SIGKILL', requested: true });
    expect(running(child.pid!)).toBe(false);
    await vi.waitFor(() => expect(running(grandchild)).toBe(false));
  });

  it('stops a well-behaved child with SIGTERM', async () => {
    const { child } = start('setInterval(() => {}, 1000)');
    expect(await child.stop()).toMatchObject({ signal: 'SIGTERM', requested: true, reason: 'signal SIGTERM' });
    // Idempotent.
    expect(await child.stop()).toMatchObject({ signal: 'SIGTERM' });
  });

  it('nothing a callback throws escapes a data handler: logged, and the lines after it in the same chunk still arrive', async () => {
    const logs: Record<string, unknown>[] = [];
    const seen: unknown[] = [];
    let lines!: () => void;
    const three = new Promise<void>((resolve) => (lines = resolve));
    const child = new StdioChild({
      command: process.execPath,
      // Three lines in one write; two stderr lines; then it waits for stdin to close.
      args: ['-e', `process.stdout.write('{"n":1}\\n{"n":2}\\n{"n":3}\\n'); process.stderr.write('secret\\nplain\\n'); process.stdin.resume();`],
      env: { PATH: process.env.PATH ?? '' },
      cwd: process.cwd(),
      maxLineBytes: 1024,
      killTimeoutMs: 1_000,
      log: captureLogger(logs),
      redact: (line) => {
        if (line === 'secret') throw new Error('redaction broke');
        return line;
      },
      onLine: (line) => {
        const m = JSON.parse(line.toString()) as { n: number };
        if (m.n === 1) throw new Error('handler broke');
        seen.push(m);
        if (m.n === 3) lines();
      },
      onOverlong: () => {},
      onExit: () => {},
    });
    children.push(child);
    await three;
    expect(seen).toEqual([{ n: 2 }, { n: 3 }]);
    await vi.waitFor(() => expect(logs.find((l) => l.msg === 'upstream stderr could not be handled; dropped')).toMatchObject({ err: { message: 'redaction broke' } }));
    expect(logs.find((l) => l.msg === 'a line of upstream stdout could not be handled; dropped')).toMatchObject({ level: 50, err: { message: 'handler broke' } });
    expect(child.alive).toBe(true);
  });

  it('refuses a write once more than maxQueuedBytes wait for a child that does not read', async () => {
    const { child } = start(`setInterval(() => {}, 1 << 30);`);
    const bounded = new StdioChild({
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1 << 30);'],
      env: { PATH: process.env.PATH ?? '' },
      cwd: process.cwd(),
      maxLineBytes: 1024,
      maxQueuedBytes: 64 * 1024,
      killTimeoutMs: 1_000,
      log,
      onLine: () => {},
      onOverlong: () => {},
      onExit: () => {},
    });
    children.push(bounded);
    const line = JSON.stringify({ pad: 'x'.repeat(16 * 1024) });
    let written = 0;
    while (bounded.write(line) === 'written') written++;
    // The socket to the child takes some; past it, the gateway keeps at most the bound (plus the one over it).
    expect(written).toBeLessThan(200);
    expect(bounded.queuedBytes).toBeLessThanOrEqual(64 * 1024 + line.length + 1);
    expect(bounded.write(line)).toBe('full');
    // Without a bound of its own, maxLineBytes is the bound.
    let plain = 0;
    while (child.write('{"x":1}') === 'written' && plain < 100_000) plain++;
    expect(plain).toBeLessThan(100_000);
  });
});

