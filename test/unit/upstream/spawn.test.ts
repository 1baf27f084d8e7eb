/**
 * spawnGroup: one process group per child, signalled as a whole. The scripts stand in for wrappers such as
 * `npm exec`: a leader that starts the real server sharing its pipes and forwards nothing.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spawnGroup, type ProcessGroup, type SpawnGroupOptions } from '../../../src/upstream/spawn.js';
import { lineMatching, running } from '../../helpers/processes.js';

const groups: ProcessGroup[] = [];

afterEach(async () => {
  await Promise.all(groups.splice(0).map((g) => g.stop(100)));
});

function start(script: string, options: Partial<SpawnGroupOptions> = {}): ProcessGroup {
  const group = spawnGroup({ command: process.execPath, args: ['-e', script], env: {}, cwd: process.cwd(), ...options });
  groups.push(group);
  return group;
}

/** A leader that starts `grandchild` on its own stdio, prints its pid, and exits on SIGTERM without forwarding it. */
const WRAPPER = (grandchild: string): string => `
  const { spawn } = require('node:child_process');
  const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'inherit' });
  g.on('spawn', () => process.stdout.write('grandchild ' + g.pid + '\\n'));
  process.on('SIGTERM', () => process.exit(0));
  setInterval(() => {}, 1000);
`;

describe('spawnGroup', () => {
  it('stop() ends the whole group: a grandchild the leader never told to stop is gone too', async () => {
    const group = start(WRAPPER('setInterval(() => {}, 1000)'));
    await group.spawned;
    const line = await lineMatching(group.child.stdout, (l) => l.startsWith('grandchild '));
    const grandchild = Number(line.split(' ')[1]);
    expect(running(grandchild)).toBe(true);

    const exit = await group.stop(10_000);
    expect(exit).toMatchObject({ kind: 'exited', requested: true });
    // Its pipe closes as it dies, a moment before the kernel marks it dead: wait for that, briefly.
    await vi.waitFor(() => expect(running(grandchild)).toBe(false));
    expect(group.alive).toBe(false);
  });

  it('a group that ignores SIGTERM gets SIGKILL after the grace', async () => {
    const group = start(`process.on('SIGTERM', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);`);
    await lineMatching(group.child.stdout, (l) => l === 'ready');
    const exit = await group.stop(200);
    expect(exit).toMatchObject({ kind: 'exited', signal: 'SIGKILL', requested: true, reason: 'signal SIGKILL' });
  });

  it('exited waits for stdout to close: what a grandchild writes after the leader exited is still read', async () => {
    // Node closes our end of stdin when the leader exits, so the grandchild is told by a signal to finish.
    const grandchild = `process.on('SIGUSR2', () => { process.stdout.write('late\\n'); process.exit(0); }); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);`;
    const group = start(`
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'inherit' });
      g.on('spawn', () => { process.stdout.write('grandchild ' + g.pid + '\\n'); process.exit(0); });
    `);
    let out = '';
    const lines: string[] = [];
    let seen: () => void = () => {};
    const both = new Promise<void>((resolve) => (seen = resolve));
    group.child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      lines.splice(0, lines.length, ...out.split('\n'));
      if (lines.includes('ready') && lines.some((l) => l.startsWith('grandchild '))) seen();
    });
    const leaderExited = new Promise((resolve) => group.child.once('exit', resolve));
    await both;
    await leaderExited;
    expect(group.alive).toBe(true);
    const pid = Number(lines.find((l) => l.startsWith('grandchild '))!.split(' ')[1]);
    process.kill(pid, 'SIGUSR2');
    expect(await group.exited).toMatchObject({ kind: 'exited', code: 0, requested: false });
    expect(out.split('\n').sort()).toEqual(['', `grandchild ${pid}`, 'late', 'ready']);
    expect(out.endsWith('late\n')).toBe(true);
  });

  it('ends a group whose leader exited while a member keeps stdout open, once the grace is over: nothing can be asked of it', async () => {
    // The grandchild shares the leader's pipes, ignores SIGTERM and never exits on its own.
    const grandchild = `process.on('SIGTERM', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);`;
    const group = start(
      `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'inherit' });
      g.on('spawn', () => { process.stdout.write('grandchild ' + g.pid + '\\n'); setTimeout(() => process.exit(3), 200); });
    `,
      { orphanGraceMs: 100 },
    );
    const line = await lineMatching(group.child.stdout, (l) => /^grandchild \d+$/.test(l));
    const pid = Number(line.split(' ')[1]);
    expect(await group.exited).toMatchObject({ kind: 'exited', requested: false });
    await vi.waitFor(() => expect(running(pid)).toBe(false));
  });

  it('ends a group whose child closed its stdin but runs on, once a write found the pipe broken', async () => {
    const group = start(`require('node:fs').closeSync(0); process.stdout.write('closed\\n'); setInterval(() => {}, 1000);`, { orphanGraceMs: 100 });
    await lineMatching(group.child.stdout, (l) => l === 'closed');
    group.child.stdin.write('{"jsonrpc":"2.0","method":"ping"}\n');
    group.child.stdin.write('{"jsonrpc":"2.0","method":"ping"}\n');
    expect(await group.exited).toMatchObject({ kind: 'exited', requested: false });
  });

  it('a command that cannot be spawned rejects `spawned` and ends as kind spawn', async () => {
    const group = spawnGroup({ command: 'retrofit-no-such-command', args: [], env: {}, cwd: process.cwd() });
    await expect(group.spawned).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await group.exited).toMatchObject({ kind: 'spawn', code: null, reason: 'spawn ENOENT' });
    expect(group.pid).toBeUndefined();
    expect(await group.stop(100)).toMatchObject({ kind: 'spawn' });
  });

  it('keeps the last stderr lines, redacted, and hands each line out as it arrives', async () => {
    const seen: string[] = [];
    const group = start(`for (let i = 1; i <= 30; i++) console.error('line ' + i + ' token=s3cret-value'); process.exit(2);`, {
      stderr: { maxLines: 20, redact: (l) => l.replaceAll('s3cret-value', '[Redacted]') },
      onStderrLine: (l) => seen.push(l),
    });
    group.child.stdout.resume();
    expect(await group.exited).toMatchObject({ code: 2, reason: 'code 2' });
    const tail = group.stderrTail().split('\n');
    expect(tail).toHaveLength(20);
    expect(tail[0]).toBe('line 11 token=[Redacted]');
    expect(tail.at(-1)).toBe('line 30 token=[Redacted]');
    expect(seen).toHaveLength(30);
    expect(seen.join('\n')).not.toContain('s3cret');
  });
});
