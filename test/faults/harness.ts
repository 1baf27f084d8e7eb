/**
 * One world for a fault run: the four fault upstreams (Streamable HTTP, stdio relay, legacy HTTP+SSE, and a
 * Streamable HTTP one that serves only 2026-07-28) in this process, a config naming them, and the built gateway in front as its own process. A gateway that
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
import { startModernUpstream, type FaultModernUpstream } from './upstream-modern.js';
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
/**
 * stateless.poolSize of the upstreams 2026-07-28 clients are served on pooled sessions of: room for the few
 * sessions that run at once on one upstream, each with a few requests in flight (one per pooled session).
 */
export const POOL_SIZE = 8;
/** stateless.idleTimeoutMs of those upstreams: a session's requests follow each other within it. */
export const POOL_IDLE_MS = 250;

/**
 * Where each target's clients go, what kind of client they are (`stateless`: one that speaks 2026-07-28 — no
 * initialize, no session, every request on its own), and whether the gateway proxies their requests to the
 * upstream (`proxied`: what the upstream sends reaches them byte for byte) rather than framing them itself.
 */
export const TARGETS = Object.freeze({
  /** A proxied Streamable HTTP upstream (`url:`). */
  http: { upstream: 'http', path: '/http/mcp', client: 'streamable', proxied: true },
  /** A stdio upstream, one child per session. */
  stdio: { upstream: 'stdio', path: '/stdio/mcp', client: 'streamable', proxied: false },
  /** A stdio upstream in share mode (one child for every session). */
  shared: { upstream: 'shared', path: '/shared/mcp', client: 'streamable', proxied: false },
  /** A legacy HTTP+SSE upstream, for a Streamable HTTP client. */
  sse: { upstream: 'legacy', path: '/legacy/mcp', client: 'streamable', proxied: false },
  /** A legacy HTTP+SSE upstream, for a legacy (2024-11-05) client. */
  legacy: { upstream: 'legacy', path: '/legacy/mcp', client: 'legacy', proxied: false },
  /** A 2026-07-28-only upstream (`url:`), for an older Streamable HTTP client: the gateway holds its session. */
  modern: { upstream: 'modern', path: '/modern/mcp', client: 'streamable', proxied: false },
  /** 2026-07-28 clients of the session-only Streamable HTTP upstream: pooled sessions the gateway holds over HTTP. */
  'stateless-http': { upstream: 'http', path: '/http/mcp', client: 'stateless', proxied: false },
  /** 2026-07-28 clients of the stdio upstream: pooled sessions, a child each. */
  'stateless-stdio': { upstream: 'stdio', path: '/stdio/mcp', client: 'stateless', proxied: false },
  /** 2026-07-28 clients of the legacy HTTP+SSE upstream: pooled sessions over its SSE connections. */
  'stateless-sse': { upstream: 'legacy', path: '/legacy/mcp', client: 'stateless', proxied: false },
  /** 2026-07-28 clients of the 2026-07-28-only upstream: proxied. */
  'stateless-modern': { upstream: 'modern', path: '/modern/mcp', client: 'stateless', proxied: true },
} as const);

export type Target = keyof typeof TARGETS;
export const TARGET_NAMES = Object.keys(TARGETS) as Target[];

export interface World {
  readonly recorder: Recorder;
  /** The Streamable HTTP upstream's own URL (a session made there is one the gateway has not seen). */
  readonly httpUpstream: string;
  /** The 2026-07-28-only upstream (what it still holds open of a session). */
  readonly modernUpstream: FaultModernUpstream;
  /** The gateway now (a new one after a crash). */
  gateway(): GatewayProcess;
  /** Start a new gateway if this one is gone; returns true if it did. */
  revive(): Promise<boolean>;
  /** How many times the gateway was started again. */
  readonly restarts: number;
  close(): Promise<void>;
}

function config(http: FaultHttpUpstream, stdio: FaultStdioUpstream, legacy: FaultLegacyUpstream, modern: FaultModernUpstream): object {
  const tools = { weather: { outputSchema: WEATHER_SCHEMA } };
  // Pooled sessions for 2026-07-28 clients close soon after their last request: a leak check waits until
  // nothing is held, and a chunk of sessions that each waited out IDLE_TIMEOUT_MS would take that long more.
  const stateless = { poolSize: POOL_SIZE, idleTimeoutMs: POOL_IDLE_MS };
  const owned = { timeoutMs: UPSTREAM_TIMEOUT_MS, idleTimeoutMs: IDLE_TIMEOUT_MS, maxSessions: SESSION_CAP, tools, stateless };
  const child = { command: process.execPath, args: [RELAY_SCRIPT, String(stdio.port)] };
  return {
    limits: LIMITS,
    upstreams: {
      http: { url: http.url, timeoutMs: UPSTREAM_TIMEOUT_MS, tools, stateless },
      stdio: { ...child, ...owned },
      shared: { ...child, ...owned, share: true },
      legacy: { sse: legacy.url, ...owned },
      modern: { url: modern.url, timeoutMs: UPSTREAM_TIMEOUT_MS, tools },
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
    const modern = await startModernUpstream(recorder);
    closers.push(modern.close);
    const file = join(dir, 'config.yaml');
    // JSON is YAML: the config is written as JSON.
    writeFileSync(file, JSON.stringify(config(http, stdio, legacy, modern), null, 2));
    let gateway = await startGatewayProcess(file);
    let restarts = 0;
    return {
      recorder,
      httpUpstream: http.url,
      modernUpstream: modern,
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
