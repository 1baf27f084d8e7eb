/**
 * One world for a fault run: the three fault upstreams (Streamable HTTP, stdio relay, legacy HTTP+SSE) in
 * this process, a config naming them, and the built gateway in front as its own process. A gateway that
 * crashed is started again on the same config (the run goes on; the crash is a failure of the sessions in
 * flight). Everything is closed by close(), which the suite calls whatever happened.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../helpers/cli.js';
import { LIMITS, WEATHER_SCHEMA } from './directive.js';
import { startGatewayProcess, type GatewayProcess } from './gateway.js';
import { Recorder } from './steps.js';
import { startHttpUpstream, type FaultHttpUpstream } from './upstream-http.js';
import { startLegacyUpstream, type FaultLegacyUpstream } from './upstream-legacy.js';
import { RELAY_SCRIPT, startStdioUpstream, type FaultStdioUpstream } from './upstream-stdio.js';

/** How long the gateway waits for an upstream answer, and keeps an idle owned session (ms). */
export const UPSTREAM_TIMEOUT_MS = 3_000;
export const IDLE_TIMEOUT_MS = 2_500;
/**
 * One-shot timers no longer than this end by themselves soon after a session: per-request deadlines (the
 * upstream timeout), idle sessions' timers, and the 4 s keep-alive of connections pooled towards upstreams.
 * A timer that outlives its session is one that lasts longer, or repeats.
 */
export const SHORT_TIMER_MS = 5_000;
/** maxSessions of every upstream whose sessions the gateway owns. */
export const SESSION_CAP = 32;

/** Where each target's clients go, and what kind of client they are. */
export const TARGETS = Object.freeze({
  /** A proxied Streamable HTTP upstream (`url:`). */
  http: { upstream: 'http', path: '/http/mcp', client: 'streamable' },
  /** A stdio upstream, one child per session. */
  stdio: { upstream: 'stdio', path: '/stdio/mcp', client: 'streamable' },
  /** A stdio upstream in share mode (one child for every session). */
  shared: { upstream: 'shared', path: '/shared/mcp', client: 'streamable' },
  /** A legacy HTTP+SSE upstream, for a Streamable HTTP client. */
  sse: { upstream: 'legacy', path: '/legacy/mcp', client: 'streamable' },
  /** A legacy HTTP+SSE upstream, for a legacy (2024-11-05) client. */
  legacy: { upstream: 'legacy', path: '/legacy/mcp', client: 'legacy' },
} as const);

export type Target = keyof typeof TARGETS;
export const TARGET_NAMES = Object.keys(TARGETS) as Target[];

export interface World {
  readonly recorder: Recorder;
  /** The Streamable HTTP upstream's own URL (a session made there is one the gateway has not seen). */
  readonly httpUpstream: string;
  /** The gateway now (a new one after a crash). */
  gateway(): GatewayProcess;
  /** Start a new gateway if this one is gone; returns true if it did. */
  revive(): Promise<boolean>;
  /** How many times the gateway was started again. */
  readonly restarts: number;
  close(): Promise<void>;
}

function config(http: FaultHttpUpstream, stdio: FaultStdioUpstream, legacy: FaultLegacyUpstream): object {
  const tools = { weather: { outputSchema: WEATHER_SCHEMA } };
  const owned = { timeoutMs: UPSTREAM_TIMEOUT_MS, idleTimeoutMs: IDLE_TIMEOUT_MS, maxSessions: SESSION_CAP, tools };
  const child = { command: process.execPath, args: [RELAY_SCRIPT, String(stdio.port)] };
  return {
    limits: LIMITS,
    upstreams: {
      http: { url: http.url, timeoutMs: UPSTREAM_TIMEOUT_MS, tools },
      stdio: { ...child, ...owned },
      shared: { ...child, ...owned, share: true },
      legacy: { sse: legacy.url, ...owned },
    },
  };
}

export async function startWorld(): Promise<World> {
  await ensureBuilt();
  const recorder = new Recorder();
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-faults-'));
  const closers: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  try {
    const http = await startHttpUpstream(recorder);
    closers.push(http.close);
    const stdio = await startStdioUpstream(recorder);
    closers.push(stdio.close);
    const legacy = await startLegacyUpstream(recorder);
    closers.push(legacy.close);
    const file = join(dir, 'config.yaml');
    // JSON is YAML: the config is written as JSON.
    writeFileSync(file, JSON.stringify(config(http, stdio, legacy), null, 2));
    let gateway = await startGatewayProcess(file);
    let restarts = 0;
    return {
      recorder,
      httpUpstream: http.url,
      gateway: () => gateway,
      get restarts() {
        return restarts;
      },
      async revive() {
        if (gateway.alive()) return false;
        gateway = await startGatewayProcess(file);
        restarts += 1;
        return true;
      },
      async close() {
        await gateway.stop();
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close();
    throw err;
  }
}
