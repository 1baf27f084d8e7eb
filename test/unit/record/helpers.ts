/** Recorder test helpers: a temp root, a config with `record` set, counters read back, log lines kept. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { onTestFinished } from 'vitest';
import { STATELESS_DEFAULTS, type RecordConfig, type UpstreamConfig } from '../../../src/config/types.js';
import type { JsonObject } from '../../../src/json.js';
import { createMetrics, type Metrics } from '../../../src/metrics.js';
import type { RecorderConfig } from '../../../src/record/index.js';
import type { Logger } from '../../../src/log.js';

/** A fresh directory, removed when the test ends. */
export async function tempRoot(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'retrofit-record-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A config with one HTTP upstream `w` (recording as given) and one `off` without recording; `secrets` are
 * `w`'s header values under secret names (X-Api-Key-<n>), `switches` its header values under plain names.
 */
export function recorderConfig(record: RecordConfig | undefined, secrets: readonly string[] = [], switches: readonly string[] = []): RecorderConfig {
  const base = { kind: 'http', path: '/w/mcp', timeoutMs: 1000, url: 'http://127.0.0.1:9/mcp', headers: {}, tools: {}, bridge: true, stateless: STATELESS_DEFAULTS } as const;
  const headers = Object.fromEntries([...secrets.map((s, i) => [`X-Api-Key-${i}`, s]), ...switches.map((s, i) => [`X-Switch-${i}`, s])]);
  const w: UpstreamConfig = { ...base, name: 'w', headers, ...(record && { record }) };
  const off: UpstreamConfig = { ...base, name: 'off', path: '/off/mcp' };
  return { upstreams: { w, off }, secrets };
}

/** Metrics without the default process metrics. */
export function metrics(): Metrics {
  return createMetrics({ defaultMetrics: false });
}

/** The value of a counter for these labels (0 when never incremented). */
export async function counter(m: Metrics, name: 'recorded' | 'recordDrops', labels: Record<string, string>): Promise<number> {
  const { values } = await m[name].get();
  const hit = values.find((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, string | number | undefined>)[k] === x));
  return hit?.value ?? 0;
}

/** A logger whose lines are kept as objects. */
export function capturingLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}

/** The recordings of a tool directory, oldest first. */
export async function filesIn(dir: string): Promise<{ name: string; json: JsonObject }[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return [];
  }
  return Promise.all(names.map(async (name) => ({ name, json: JSON.parse(await readFile(join(dir, name), 'utf8')) as JsonObject })));
}

/** A text-only CallToolResult. */
export const text = (t: string): JsonObject => ({ content: [{ type: 'text', text: t }] });
