/** Runs the built CLI (`node dist/cli.js …`) as its own process, the way users and scripts do. */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { onTestFinished } from 'vitest';
import { REPO } from './stdio-gateway.js';

/** A Writable that keeps what is written to it: the stdout/stderr of an in-process CLI command (CliIo). */
export function textSink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { text: () => chunks.join('') });
}

/** How a CLI run ended. */
export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm test` builds first; a lone run of a test file builds here. */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(resolve(REPO, 'dist/cli.js'))) return;
  await promisify(execFile)(process.execPath, [resolve(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO });
}

/** Runs `node dist/cli.js ...args` to its exit; the process is killed if the test ends first. */
export async function runCli(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<CliRun> {
  await ensureBuilt();
  const child = spawn(process.execPath, [resolve(REPO, 'dist/cli.js'), ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolveRun, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolveRun({ code, signal, stdout, stderr }));
  });
}
