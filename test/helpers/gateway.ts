/**
 * Start the gateway on port 0 for a test, with its log lines captured as objects and its own metrics.
 */
import { onTestFinished } from 'vitest';
import { buildApp, type BuildOptions, type GatewayApp } from '../../src/app.js';
import type { LoadedConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';

/** One parsed pino line. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

export interface TestGateway {
  readonly app: GatewayApp;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly logs: LogLine[];
  readonly metrics: Metrics;
  /** The URL of an upstream's route. */
  url(path: string): string;
}

/** A pino destination that keeps every line as an object. */
export function captureLogs(): { lines: LogLine[]; stream: { write(line: string): void } } {
  const lines: LogLine[] = [];
  return { lines, stream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } };
}

export async function startGateway(loaded: LoadedConfig, options: Omit<BuildOptions, 'logger' | 'metrics'> = {}): Promise<TestGateway> {
  const { lines, stream } = captureLogs();
  const logger = createLogger({ level: 'debug', destination: stream, secrets: loaded.config.secrets });
  const metrics = createMetrics({ defaultMetrics: false });
  const app = await buildApp(loaded, { ...options, logger, metrics });
  onTestFinished(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('gateway did not bind a TCP port');
  const origin = `http://127.0.0.1:${address.port}`;
  return { app, origin, logs: lines, metrics, url: (path) => `${origin}${path}` };
}

/** The per-request log lines (msg "request"). */
export function requestLines(logs: readonly LogLine[]): LogLine[] {
  return logs.filter((l) => l.msg === 'request');
}
