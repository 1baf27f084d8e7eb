/**
 * nginx as the reference proxy: found on PATH (or /usr/sbin), installed from Debian once when missing
 * (we run as root in the bench container), started in the foreground with one worker (the gateway is one
 * Node process too) in front of one upstream. Resolves undefined with a reason when impossible.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd, start } from './procs.js';
import { freePort, tcpOpen, until } from './sys.js';
import { scratch } from './servers.js';

let installTried = false;

function findNginx() {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/local/sbin', '/usr/local/nginx/sbin'])) {
    const p = join(dir, 'nginx');
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

/** Path of the nginx binary, installing it once if needed; or { skip: reason }. */
export async function ensureNginx() {
  const found = findNginx();
  if (found) return { bin: found };
  if (installTried) return { skip: 'nginx not installed (install already failed once)' };
  installTried = true;
  if (process.getuid?.() !== 0) return { skip: 'nginx not on PATH and not root, cannot apt-get install' };
  try {
    console.error('# nginx not found: apt-get install -y nginx');
    await runToEnd('apt-get', ['update'], { timeoutMs: 180_000 });
    await runToEnd('apt-get', ['install', '-y', 'nginx'], { timeoutMs: 300_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (err) {
    return { skip: `apt-get install nginx failed: ${err.message.split('\n')[0]}` };
  }
  const bin = findNginx();
  return bin ? { bin } : { skip: 'nginx still not found after apt-get install' };
}


/** Start nginx proxying every path to `upstreamOrigin`; resolves { url, stop } or { skip }. */
export async function startNginx(upstreamOrigin) {
  const found = await ensureNginx();
  if (found.skip) return found;
  const dir = scratch('mcp-retrofit-nginx-');
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  const port = await freePort();
  const up = new URL(upstreamOrigin);
  const conf = `
user root;
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream mcp { server ${up.host}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 3600s;
    }
  }
}
`;
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const proc = start(found.bin, ['-c', file, '-p', dir]);
  await until(() => tcpOpen(port), 10_000, 'nginx to listen');
  return { url: `http://127.0.0.1:${port}`, pid: proc.child.pid, stop: () => proc.stop() };
}
