/**
 * `check --probe` reaches an upstream on a port the Fetch standard calls "bad" (6000, 6665–6669, 6697, 10080):
 * the platform's `fetch` refuses those ("bad port") while serving (undici's dispatcher) reaches them, so the
 * probe uses the serving side's client (issue 25). The upstream here is a real MCP server on such a port:
 * another gateway in front of the stdio fixture, bound to the first of those ports that is free.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect, it, onTestFinished } from 'vitest';
import { buildApp } from '../../src/app.js';
import { run } from '../../src/cli/check.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { gatewayConfig, stdioUpstream } from '../helpers/config.js';
import { FIXTURE_SERVER, REPO } from '../helpers/stdio-gateway.js';

const BAD_PORTS = [6000, 6665, 6666, 6667, 6668, 6669, 6697, 10080];

function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port }, () => server.close(() => resolve(true)));
  });
}

it('lists the tools of an upstream on a port fetch refuses', async () => {
  // The fetch standard's refusal, for the record: the platform's fetch never leaves the process.
  await expect(fetch('http://127.0.0.1:6000/')).rejects.toThrow(/bad port|fetch failed/);
  let port: number | undefined;
  for (const p of BAD_PORTS) if (await free(p)) { port = p; break; }
  expect(port, 'one of the bad ports is free on this machine').toBeDefined();

  const loaded = gatewayConfig([stdioUpstream('fixture', process.execPath, { args: [FIXTURE_SERVER], cwd: REPO })]);
  const app = await buildApp(loaded, { logger: createLogger({ level: 'silent' }), metrics: createMetrics({ defaultMetrics: false }) });
  onTestFinished(() => app.close());
  await app.listen({ host: '127.0.0.1', port: port! });

  const dir = mkdtempSync(join(tmpdir(), 'retrofit-badport-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'gw.yaml'), `upstreams:\n  far:\n    url: http://127.0.0.1:${port}/fixture/mcp\n`);
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  expect(await run(['--config', join(dir, 'gw.yaml'), '--probe'], { stdout, stderr: new PassThrough() })).toBe(0);
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  expect(lines[0]).toMatch(/^far: \d+ tools \(http, server stdio-fixture 1\.0\.0, revision 2025-11-25\)$/);
  expect(lines).toContain('ok');
});
