// The processes of a conformance run: the reference server, a gateway in front of an upstream, and the suite
// itself (server scenarios against a URL; client scenarios against the reference client, directly or through a
// gateway per scenario via client-shim.mjs). Everything binds 127.0.0.1 and takes its port from the system.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { start } from '../../bench/lib/procs.js';
import { startGateway as launchGateway } from '../../bench/lib/servers.js';

const LOOPBACK = fileURLToPath(new URL('./loopback.mjs', import.meta.url));
const SHIM = fileURLToPath(new URL('./client-shim.mjs', import.meta.url));

/** The reference server over Streamable HTTP: resolves with its MCP URL and a stop(). */
export async function startReference(tools, sources, logFile) {
  // tsx runs the file in a child process of its own: the preload travels in NODE_OPTIONS.
  const preload = `--import=${pathToFileURL(LOOPBACK).href}`;
  const proc = start(tools.node, [sources.tsx, sources.server], {
    cwd: sources.serverDir,
    env: { ...process.env, RETROFIT_CONFORMANCE_ANNOUNCE: '1', NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' ') },
    logFile,
  });
  const [, port] = await proc.waitFor(/^conformance-listening (\d+)$/m, 60_000);
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => proc.stop() };
}

/**
 * The gateway (dist/cli.js on this Node, bench's launcher) serving `upstream` at `path`; resolves with its URL for
 * that path. Its log is kept as `keepLog` when it stops.
 */
export async function startGateway(upstream, path, keepLog) {
  const gateway = await launchGateway({ reference: { ...upstream, path } });
  return {
    url: `${gateway.address}${path}`,
    async stop() {
      await gateway.stop();
      mkdirSync(dirname(keepLog), { recursive: true });
      copyFileSync(gateway.logFile, keepLog);
    },
  };
}

/** Server scenarios (the whole suite, pending ones included) against `url`; results under `out`. */
export async function runServerScenarios(tools, url, out) {
  mkdirSync(out, { recursive: true });
  const proc = start(tools.node, ['--import', LOOPBACK, tools.suite, 'server', '--url', url, '--suite', 'all', '-o', out], { logFile: `${out}.log` });
  return proc.exited;
}

/**
 * Client scenarios (all, run in parallel by the suite) with the reference client; with `gateway`, each scenario's
 * client reaches the suite's server through a gateway of its own (client-shim.mjs), started for that scenario.
 */
export async function runClientScenarios(tools, sources, out, { gateway = false, timeoutMs = 120_000 } = {}) {
  mkdirSync(out, { recursive: true });
  const client = [tools.node, sources.tsx, sources.client];
  // The suite splits --command on spaces: these paths must have none (the cache path is checked by run.mjs).
  const command = gateway ? [process.execPath, SHIM].join(' ') : client.join(' ');
  const env = { ...process.env, RETROFIT_CONFORMANCE_CLIENT: JSON.stringify(client), RETROFIT_CONFORMANCE_LOGS: join(out, 'gateways') };
  const proc = start(tools.node, ['--import', LOOPBACK, tools.suite, 'client', '--command', command, '--suite', 'all', '--timeout', String(timeoutMs), '-o', out], {
    env,
    logFile: `${out}.log`,
  });
  return proc.exited;
}
