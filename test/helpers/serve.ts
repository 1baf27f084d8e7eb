/**
 * Run `mcp-retrofit serve` in-process on port 0 from a config file written to a temp directory, with signals
 * from an EventEmitter (so SIGHUP is the test's to send), log lines captured as objects, and the gateway shut
 * down when the test ends.
 */
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { onTestFinished } from 'vitest';
import { serve, type ServeHandle } from '../../src/cli/serve.js';
import type { ReloadResult } from '../../src/reload/reloader.js';
import { captureLogs, type LogLine } from './gateway.js';

export interface Served {
  readonly handle: ServeHandle;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The config file's absolute path. */
  readonly file: string;
  readonly dir: string;
  readonly logs: LogLine[];
  /** Every raw log line as written (after redaction). */
  readonly raw: string[];
  readonly signals: EventEmitter;
  /** Replace the config file atomically (write + rename, as editors and ConfigMaps do). */
  write(text: string): void;
  /** Send SIGHUP and resolve with the reload it triggered. */
  sighup(): Promise<ReloadResult>;
}

export async function startServe(configText: string, options: { args?: readonly string[]; watchDebounceMs?: number } = {}): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-ops-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.yaml');
  let n = 0;
  const write = (text: string): void => {
    const tmp = join(dir, `.config.yaml.${n++}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  };
  write(configText);
  const { lines, stream } = captureLogs();
  const raw: string[] = [];
  const destination = {
    write: (line: string) => {
      raw.push(line);
      stream.write(line);
    },
  };
  const signals = new EventEmitter();
  const stderr = new PassThrough();
  let errors = '';
  stderr.on('data', (c: Buffer) => (errors += c.toString()));
  const handle = await serve(['--config', file, '--host', '127.0.0.1', '--port', '0', ...(options.args ?? [])], { stdout: new PassThrough(), stderr }, {
    signals,
    logDestination: destination,
    graceMs: 2_000,
    ...(options.watchDebounceMs !== undefined && { watchDebounceMs: options.watchDebounceMs }),
  });
  if (typeof handle === 'number') throw new Error(`serve exited ${handle}: ${errors}`);
  onTestFinished(() => handle.shutdown('test finished'));
  return {
    handle,
    origin: handle.address,
    file,
    dir,
    logs: lines,
    raw,
    signals,
    write,
    async sighup() {
      const reloaded = once(handle.reloader, 'reload') as Promise<[ReloadResult, string]>;
      signals.emit('SIGHUP');
      return (await reloaded)[0];
    },
  };
}
