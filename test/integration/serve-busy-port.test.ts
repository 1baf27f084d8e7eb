/**
 * `mcp-retrofit serve` on a port something else holds: one line on stderr naming the address and why, exit 1,
 * and the process ends (run as the built CLI, so a handle left open would show as a hang).
 */
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';

it('a busy port is one clear line and exit 1', async () => {
  const holder: Server = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const { port } = holder.address() as { port: number };

  const run = await runCli(['--config', 'config/demo.yaml', '--port', String(port)]);

  expect(run.code).toBe(1);
  expect(run.stderr).toBe(`mcp-retrofit: cannot listen on 127.0.0.1:${port}: address already in use (EADDRINUSE)\n`);
});
