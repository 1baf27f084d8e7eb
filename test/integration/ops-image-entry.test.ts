/**
 * The container image's entry, without Docker: the Dockerfile's ENTRYPOINT + CMD run against the built
 * gateway, with only the config path, host and port swapped for a temp file, 127.0.0.1 and port 0. It serves
 * /healthz and /readyz, reloads on a real SIGHUP, and exits 0 on SIGTERM (node is PID 1 in the image, so
 * these signals reach the gateway directly). Asked for pretty logs without the optional pino-pretty, it
 * keeps writing JSON lines and says why. The image's Node major is the one this suite runs on (.ci/run
 * installs it), so what is tested is what ships.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { prettyAvailable } from '../../src/log.js';
import { FIXTURE_SERVER, REPO } from '../helpers/stdio-gateway.js';

/** The exec-form JSON array of the last `op` instruction of the Dockerfile. */
function instruction(op: string): string[] {
  const lines = readFileSync(resolve(REPO, 'Dockerfile'), 'utf8').split('\n').filter((l) => l.startsWith(`${op} `));
  return JSON.parse(lines.at(-1)!.slice(op.length + 1)) as string[];
}

/** CMD with the value after `flag` replaced. */
function replaceArg(args: string[], flag: string, value: string): string[] {
  const i = args.indexOf(flag);
  expect(i, `${flag} in CMD`).toBeGreaterThanOrEqual(0);
  return args.map((a, j) => (j === i + 1 ? value : a));
}

/** The image of every `FROM` line of the Dockerfile (build and final stage). */
function baseImages(): string[] {
  const text = readFileSync(resolve(REPO, 'Dockerfile'), 'utf8');
  return [...text.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]!);
}

describe('the image entry command', () => {
  it('is built on the Node major the suite runs on, in every stage', () => {
    const images = baseImages();
    expect(images.length).toBeGreaterThanOrEqual(2);
    const major = process.versions.node.split('.')[0];
    for (const image of images) expect(image, 'a node:<major>-… base image').toMatch(new RegExp(`^node:${major}-`));
  });

  it('serves /healthz and /readyz, reloads on SIGHUP and exits 0 on SIGTERM', async () => {
    // `npm test` builds first; a lone run of this file builds here.
    if (!existsSync(resolve(REPO, 'dist/cli.js'))) {
      await promisify(execFile)(process.execPath, [resolve(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO });
    }
    const dir = mkdtempSync(join(tmpdir(), 'retrofit-entry-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'config.yaml');
    const config = (title: string): string =>
      `upstreams:\n  local:\n    command: ${process.execPath}\n    args: [${JSON.stringify(FIXTURE_SERVER)}]\n    tools:\n      echo: { outputSchema: { type: object, title: ${title} } }\n`;
    writeFileSync(file, config('one'));

    const [command, ...entryArgs] = instruction('ENTRYPOINT');
    expect(command).toBe('node');
    let args = instruction('CMD');
    expect(args).toContain('/etc/mcp-retrofit/config.yaml');
    args = replaceArg(replaceArg(replaceArg(args, '--config', file), '--host', '127.0.0.1'), '--port', '0');
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [...entryArgs, ...args], {
      cwd: REPO,
      // Pretty output only when asked and available: without pino-pretty the lines stay JSON.
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info', ...(!prettyAvailable() && { LOG_FORMAT: 'pretty' }) },
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });

    const lines: Record<string, unknown>[] = [];
    const waiters: { test: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const w of waiters.filter((x) => x.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    });
    const waitFor = (test: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
      const seen = lines.find(test);
      return seen ? Promise.resolve(seen) : new Promise((resolveLine) => waiters.push({ test, resolve: resolveLine }));
    };

    const listening = await Promise.race([
      waitFor((l) => typeof l.address === 'string'),
      exited.then(([code]) => {
        throw new Error(`gateway exited ${String(code)} before listening`);
      }),
    ]);
    const origin = String(listening.address);
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    if (!prettyAvailable()) expect(lines[0]?.msg).toBe('LOG_FORMAT=pretty needs the optional pino-pretty package; logging JSON');
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', upstreams: { local: { ok: true } } });

    writeFileSync(file, config('two'));
    child.kill('SIGHUP');
    expect(await waitFor((l) => l.msg === 'config reloaded')).toMatchObject({ trigger: 'SIGHUP', generation: 2, toolsChanged: ['local'] });
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);

    child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
    expect(lines.some((l) => l.msg === 'shut down')).toBe(true);
  });
});
