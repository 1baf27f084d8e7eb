/**
 * `check --probe` on stdio upstreams, run as the built CLI: a server started through a wrapper that forwards
 * no signal (as `npm exec` does behind npx) is stopped with its whole process group, so the command exits and
 * leaves no process behind; an upstream that dies during initialize is reported with its last stderr lines,
 * the config's secrets scrubbed from them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it, onTestFinished, vi } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { running } from '../helpers/processes.js';

const WRAPPER = fileURLToPath(new URL('../fixtures/servers/orphaning-wrapper.mjs', import.meta.url));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-probe-group-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

it('regression: check --probe exits for a server behind a wrapper that orphans it, and kills the orphan', async () => {
  const dir = tempDir();
  const pidFile = join(dir, 'server.pid');
  writeFileSync(
    join(dir, 'gw.yaml'),
    `upstreams:\n  wrapped:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(WRAPPER)}, ${JSON.stringify(pidFile)}]\n    tools:\n      echo: { outputSchema: { type: string } }\n`,
  );
  const run = await runCli(['check', '--config', join(dir, 'gw.yaml'), '--probe', '--timeout', '10000']);
  const server = Number(readFileSync(pidFile, 'utf8'));
  onTestFinished(() => {
    if (running(server)) process.kill(server, 'SIGKILL');
  });

  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^wrapped: \d+ tools \(stdio, server stdio-fixture 1\.0\.0, revision 2025-11-25\)$/m);
  expect(run.stdout).toMatch(/^probe: 1 of 1 upstream answered$/m);
  expect(server).toBeGreaterThan(0);
  // Its pipe closes as it dies, a moment before the kernel marks it dead: wait for that, briefly.
  await vi.waitFor(() => expect(running(server)).toBe(false));
});

it('an upstream that exits during initialize: the error ends with its last stderr lines, secrets scrubbed', async () => {
  const dir = tempDir();
  const script = [
    'console.error("connecting to redis://cache:6379 with key " + process.env.API_KEY);',
    'console.error("Error: WRONGPASS invalid username-password pair");',
    'process.exit(1);',
  ].join(' ');
  writeFileSync(
    join(dir, 'gw.yaml'),
    `upstreams:\n  redis:\n    command: ${JSON.stringify(process.execPath)}\n    args: ["-e", ${JSON.stringify(script)}]\n    env: { API_KEY: "\${REDIS_KEY}" }\n`,
  );
  const run = await runCli(['check', '--config', join(dir, 'gw.yaml'), '--probe'], { REDIS_KEY: 'k3y-from-the-environment' });

  expect(run.code).toBe(1);
  expect(run.stderr).toBe(
    [
      `probe: upstream "redis" is unreachable: command ${process.execPath}: exited during initialize (code 1); stderr: ` +
        'connecting to redis://cache:6379 with key [Redacted] | Error: WRONGPASS invalid username-password pair',
      'probe: 0 of 1 upstream answered',
      '',
    ].join('\n'),
  );
  expect(run.stderr + run.stdout).not.toContain('k3y-from-the-environment');
});
