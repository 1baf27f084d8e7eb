/**
 * Installed like a CLI (issue 25): the tarball `npm pack` makes installs with `npm install -g` (here into a
 * temporary prefix) and gives a working `mcp-retrofit` command; and `npm start` execs the gateway, so a
 * supervisor's SIGTERM to npm reaches the gateway, which shuts down and frees its port.
 */
import { spawn, execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { REPO } from '../helpers/stdio-gateway.js';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('installed like a CLI', () => {
  it('npm pack → npm install -g gives a working mcp-retrofit command', { timeout: 180_000 }, async () => {
    const packs = temp('retrofit-pack-');
    await run(NPM, ['pack', '--ignore-scripts', '--pack-destination', packs], { cwd: REPO });
    const [tarball] = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
    expect(tarball).toMatch(/^mcp-retrofit-\d+\.\d+\.\d+\.tgz$/);
    const prefix = temp('retrofit-prefix-');
    await run(NPM, ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(packs, tarball!)], { cwd: prefix });
    const dir = temp('retrofit-cli-');
    writeFileSync(join(dir, 'gateway.yaml'), 'upstreams:\n  w:\n    url: http://127.0.0.1:9/mcp\n    tools:\n      t: { outputSchema: { type: object } }\n');
    const { stdout } = await run(join(prefix, 'bin', 'mcp-retrofit'), ['check', '--config', join(dir, 'gateway.yaml')], { cwd: dir });
    expect(stdout).toBe('ok\n');
  });

  it('npm start execs the gateway: SIGTERM to npm reaches it, and its port is freed', { timeout: 60_000 }, async () => {
    // --ignore-scripts: no prestart build (npm test built dist/ already).
    const npm = spawn(NPM, ['start', '--ignore-scripts', '--', '--port', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => {
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    });
    const lines = createInterface({ input: npm.stdout });
    let url: string | undefined;
    for await (const line of lines) {
      url = /listening on (http:\/\/[^"\s]+)/.exec(line)?.[1];
      if (url) break;
    }
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const exited = once(npm, 'exit');
    npm.kill('SIGTERM');
    await exited;
    // Nobody holds the port any more: the gateway itself got the signal and shut down.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
