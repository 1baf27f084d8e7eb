/**
 * Regression: `limits.headersTimeoutMs` above 300000 passed `check`, then `serve` died with Node's raw
 * RangeError (the server was built without its requestTimeout); values past what Node's timers hold passed
 * both. Now a valid pair (400000 ≤ 600000) serves, and a value out of range gets the same one-line
 * FILE:LINE:COL error and exit 1 from `check` and from `serve`, never a stack trace.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';

const upstream = ['upstreams:', '  a: { url: "http://127.0.0.1:1/mcp" }'];

it('serves with headersTimeoutMs above 300000 when requestTimeoutMs covers it', async () => {
  const served = await startServe(`${['limits: { headersTimeoutMs: 400000, requestTimeoutMs: 600000 }', ...upstream].join('\n')}\n`);
  expect((await fetch(`${served.origin}/healthz`)).status).toBe(200);
});

it('check and serve both refuse a timeout past the longest timer, in one line at its value', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-limits-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'gw.yaml');
  writeFileSync(file, `${['limits:', '  headersTimeoutMs: 10000000000', ...upstream].join('\n')}\n`);
  const want = `${file}:2:21 limits.headersTimeoutMs: must be <= 2147483647\n`;

  const check = await runCli(['check', '--config', file]);
  expect(check).toMatchObject({ code: 1, stdout: '', stderr: want });
  const serve = await runCli(['--config', file, '--port', '0']);
  expect(serve).toMatchObject({ code: 1, stdout: '', stderr: want });
});
