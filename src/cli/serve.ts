/**
 * `mcp-retrofit [serve] --config FILE [--host H] [--port N] [--watch]`: load the config, build the gateway,
 * listen, and shut down gracefully on SIGTERM/SIGINT — stop accepting, let in-flight requests finish within
 * a bound, close streams, then close the app. SIGHUP (and with --watch, a change of the config file) reloads
 * the config without a restart (src/reload/).
 */
import type { EventEmitter } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp } from '../app.js';
import type { ReloadReport } from '../console/wire.js';
import type { CliIo } from './io.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { createLogger, Redactor, type Logger } from '../log.js';
import { createMetrics } from '../metrics.js';
import { Generations } from '../config/generations.js';
import { Reloader, type ReloadResult } from '../reload/reloader.js';
import { watchConfig, WATCH_DEBOUNCE_MS } from '../reload/watch.js';
import { usageOf } from './usage.js';

const USAGE = usageOf('serve');

interface ServeArgs {
  readonly config: string;
  readonly host?: string;
  readonly port?: number;
  readonly watch?: boolean;
}

function parseArgs(args: readonly string[]): ServeArgs | string {
  const values: Record<string, string> = {};
  let watch = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--watch') {
      watch = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (!['--config', '-c', '--host', '--port'].includes(name)) return `unknown argument "${arg}"`;
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '') return `${name} needs a value`;
    values[name === '-c' ? '--config' : name] = value;
  }
  const config = values['--config'];
  if (config === undefined) return '--config FILE is required';
  const portText = values['--port'];
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) return `--port must be 0..65535, got "${portText}"`;
  return { config, watch, ...(values['--host'] !== undefined && { host: values['--host'] }), ...(port !== undefined && { port }) };
}

const LISTEN_ERRORS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'address not available on this machine',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
};

/** `cannot listen on HOST:PORT: address already in use (EADDRINUSE)`: why binding failed, on one line. */
export function describeListenError(host: string, port: number, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const known = code === undefined ? undefined : LISTEN_ERRORS[code];
  const why = known !== undefined ? `${known} (${code})` : err instanceof Error ? err.message : String(err);
  return `cannot listen on ${where}: ${why}`;
}

/** Hooks for tests: where signals come from, where logs go, how long shutdown waits. */
export interface ServeOptions {
  readonly signals?: EventEmitter;
  readonly logDestination?: DestinationStream;
  readonly graceMs?: number;
  /** Quiet period of `--watch` before reloading (ms). */
  readonly watchDebounceMs?: number;
}

/** A running gateway. */
export interface ServeHandle {
  readonly app: FastifyInstance;
  /** The gateway's logger (Fastify's own is off: src/http/server/create.ts). */
  readonly logger: Logger;
  /** `http://host:port` as bound. */
  readonly address: string;
  /** Resolves once a signal-triggered (or direct) shutdown has finished. */
  readonly closed: Promise<void>;
  shutdown(reason: string): Promise<void>;
  /** Reload the config file now (what SIGHUP does). */
  reload(trigger?: string): Promise<ReloadResult>;
  /** Reports every reload attempt (`reload` event). */
  readonly reloader: Reloader;
}

/** Start serving; returns the handle, or an exit code when it could not start. */
export async function serve(args: readonly string[], io: CliIo, options: ServeOptions = {}): Promise<ServeHandle | number> {
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    io.stderr.write(`serve: ${parsed}\n${USAGE}`);
    return 1;
  }
  const signals = options.signals ?? process;
  // A SIGHUP before the gateway serves (a deploy that signals early) would end the process (its default action):
  // it is kept, and the reload done once serving, since the file may have changed after it was read.
  let hupWhileStarting = false;
  const onEarlyHup = (): void => {
    hupWhileStarting = true;
  };
  signals.on('SIGHUP', onEarlyHup);
  const started = await start(parsed, io, options, signals);
  signals.off('SIGHUP', onEarlyHup);
  if (typeof started !== 'number' && hupWhileStarting) void started.reload('SIGHUP');
  return started;
}

async function start(parsed: ServeArgs, io: CliIo, options: ServeOptions, signals: EventEmitter): Promise<ServeHandle | number> {
  let loaded;
  try {
    loaded = await loadConfig(parsed.config);
  } catch (err) {
    io.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `serve: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const redactor = new Redactor(loaded.config.secrets);
  const logger = createLogger({ redactor, ...(options.logDestination && { destination: options.logDestination }) });
  const metrics = createMetrics();
  const generations = new Generations(loaded);
  const reloader = new Reloader({ file: parsed.config, generations, logger, metrics, redactor });
  const reload = (trigger = 'request'): Promise<ReloadResult> => reloader.reload(trigger);
  // The console reloads at once what it wrote (with --watch the watch would too: the two fold into one).
  const consoleReload = async (): Promise<ReloadReport> => {
    const result = await reload('console');
    return result.ok ? { ok: true } : { ok: false, problems: result.problems };
  };
  const app = await buildApp(loaded, { logger, metrics, generations, redactor, reload: consoleReload, ...(options.graceMs !== undefined && { shutdownGraceMs: options.graceMs }) });
  const watcher = parsed.watch ? watchConfig(parsed.config, () => void reload('watch'), logger, options.watchDebounceMs ?? WATCH_DEBOUNCE_MS) : undefined;
  const host = parsed.host ?? loaded.config.listen.host;
  const port = parsed.port ?? loaded.config.listen.port;
  let address: string;
  try {
    address = await app.listen({ host, port });
  } catch (err) {
    // The usual start-up failure (a port already taken) is one line for the operator, not a stack trace.
    watcher?.close();
    await app.close().catch(() => {});
    logger.flush();
    io.stderr.write(`mcp-retrofit: ${describeListenError(host, port, err)}\n`);
    return 1;
  }
  logger.info({ address, upstreams: Object.keys(loaded.config.upstreams) }, `mcp-retrofit listening on ${address}`);
  // Lines are batched (src/log.ts); this one is what supervisors and scripts wait for.
  logger.flush();

  let closing: Promise<void> | undefined;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const shutdown = (reason: string): Promise<void> => {
    closing ??= (async () => {
      logger.info({ reason }, 'shutting down: finishing in-flight requests');
      signals.off('SIGTERM', onSigterm);
      signals.off('SIGINT', onSigint);
      signals.off('SIGHUP', onSighup);
      watcher?.close();
      try {
        await app.close();
        logger.info('shut down');
      } catch (err) {
        logger.error({ err }, 'shutdown failed');
      }
      markClosed();
    })();
    return closing;
  };
  const onSigterm = (): void => void shutdown('SIGTERM');
  const onSigint = (): void => void shutdown('SIGINT');
  signals.on('SIGTERM', onSigterm);
  const onSighup = (): void => void reload('SIGHUP');
  signals.on('SIGINT', onSigint);
  signals.on('SIGHUP', onSighup);
  return { app, logger, address, closed, shutdown, reload, reloader };
}

/**
 * The last resort of the serving process: an exception or rejection nothing handled is a bug — no byte from a
 * client or an upstream may cause one — and after one the process's state is unknown. It is logged (fatal,
 * with its stack) and the process exits with 70 (EX_SOFTWARE), so the orchestrator restarts the container
 * rather than leaving a gateway running in an unknown state. Never a way of handling errors.
 */
export function installLastResort(logger: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  const fatal = (origin: string) => (err: unknown): void => {
    logger.fatal({ err, origin }, 'uncaught failure: exiting so the process is restarted');
    logger.flush();
    exit(70);
  };
  process.on('uncaughtException', fatal('uncaughtException'));
  process.on('unhandledRejection', fatal('unhandledRejection'));
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes('-h') || args.includes('--help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  const handle = await serve(args, io);
  if (typeof handle === 'number') return handle;
  installLastResort(handle.logger);
  // -1: keep running; the server and the signal handlers own the process from here.
  return -1;
}
