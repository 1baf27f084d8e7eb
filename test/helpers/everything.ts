/**
 * @modelcontextprotocol/server-everything in streamableHttp mode as a child process. It takes its port from
 * $PORT and logs `PORT` (not the bound port) when listening, so it cannot report a port-0 bind: a free port
 * is found by binding port 0 here, then handed to it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { freePort } from './listen.js';

export async function startEverything(): Promise<{ url: string }> {
  const require = createRequire(import.meta.url);
  const entry = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
  const port = await freePort();
  const child = spawn(process.execPath, [entry, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
  });
  child.stdout.resume();
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited ${String(code)}: ${stderr}`)));
  });
  child.stderr.resume();
  return { url: `http://127.0.0.1:${port}/mcp` };
}
