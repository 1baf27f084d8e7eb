/**
 * A real nginx for tests that need a load balancer: found on PATH or in /usr/sbin (.ci/run installs Debian's),
 * started in the foreground (one worker, everything in a temp dir) on a port the kernel just handed out, with
 * the `http {}` body the test gives (`PORT` in it is replaced by that port). Stopped when the test ends.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished, vi } from 'vitest';
import { freePort } from './listen.js';

export function nginxBinary(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin']) {
    if (dir !== '' && existsSync(join(dir, 'nginx'))) return join(dir, 'nginx');
  }
  return undefined;
}

const canConnect = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Start nginx with `http` as its http block; resolves its origin. */
export async function startNginx(http: string): Promise<{ origin: string; errorLog: () => string }> {
  const bin = nginxBinary();
  if (bin === undefined) throw new Error('nginx is not installed (.ci/run installs it: apt-get install -y nginx)');
  const dir = mkdtempSync(join(tmpdir(), 'mcp-retrofit-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const port = await freePort();
  const conf = `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  ${http.replaceAll('PORT', String(port))}
}
`;
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const child = spawn(bin, ['-c', file, '-p', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onTestFinished(async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
      if (!(await canConnect(port))) throw new Error('nginx is not listening yet');
    },
    { timeout: 10_000, interval: 20 },
  );
  const errorLog = (): string => (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  return { origin: `http://127.0.0.1:${port}`, errorLog };
}
