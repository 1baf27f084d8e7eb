/**
 * A throwaway PostgreSQL cluster for a test: initdb in a temp dir, `postgres` listening only on a Unix socket
 * in that dir (no TCP port to pick, so no race for a free one), stopped and removed when the test file ends.
 * The binaries come from PATH or Debian's /usr/lib/postgresql/<major>/bin (.ci/run installs the package).
 * PostgreSQL refuses to run as root, so under root the cluster belongs to the `postgres` system user.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A running cluster. `url` is a connection string for its database `test` (user `test`). */
export interface Postgres {
  readonly url: string;
  /** Run SQL through psql (as `test`, on database `test`). */
  sql(statement: string): Promise<string>;
  stop(): Promise<void>;
}

/** The directory holding initdb, pg_ctl and postgres, or undefined when PostgreSQL is not installed. */
export function postgresBin(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'initdb'))) return dir;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a));
  for (const major of majors) if (existsSync(join(root, major, 'bin', 'initdb'))) return join(root, major, 'bin');
  return undefined;
}

async function systemUser(name: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Resolves when `child` writes a stderr line matching `ready`; rejects if it exits first. */
function readyOn(child: ChildProcess, ready: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      seen += chunk;
      if (ready.test(seen)) resolve();
    });
    child.once('exit', (code, signal) => reject(new Error(`postgres exited (${code ?? signal}) before it was ready:\n${seen}`)));
  });
}

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error('PostgreSQL is not installed (initdb not on PATH nor in /usr/lib/postgresql/*/bin); .ci/run installs it');
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-pg-'));
  const owner = process.getuid?.() === 0 ? await systemUser('postgres') : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const data = join(dir, 'data');
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'test', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], { ...as, env: { ...process.env, LC_ALL: 'C' } });
  const server = spawn(join(bin, 'postgres'), ['-D', data, '-k', dir, '-c', 'listen_addresses=', '-c', 'fsync=off', '-F'], { ...as, stdio: ['ignore', 'ignore', 'pipe'] });
  let exited = false;
  server.once('exit', () => {
    exited = true;
  });
  const stop = async (): Promise<void> => {
    if (!exited) {
      const gone = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT'); // fast shutdown
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Debian ships psql beside the server binaries; elsewhere it is on PATH.
  const psqlBin = existsSync(join(bin, 'psql')) ? join(bin, 'psql') : 'psql';
  const psql = (db: string, statement: string) => run(psqlBin, ['-h', dir, '-U', 'test', '-d', db, '-v', 'ON_ERROR_STOP=1', '-X', '-q', '-A', '-t', '-c', statement]);
  try {
    await readyOn(server, /database system is ready to accept connections/);
    await psql('postgres', 'CREATE DATABASE test');
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    // server-postgres parses this with `new URL`, and node-postgres takes the socket directory from `host`.
    url: `postgresql://test@localhost/test?host=${encodeURIComponent(dir)}`,
    sql: async (statement) => (await psql('test', statement)).stdout,
    stop,
  };
}
