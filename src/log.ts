/**
 * pino options and redaction. Headers that carry credentials are redacted by path; values that came from
 * `${VAR}` expansion, stdio `env:` and upstream `headers:` (config.secrets) are scrubbed from every log line
 * by the streamWrite hook below. Lines are JSON; `LOG_FORMAT=pretty` pretty-prints only when the optional
 * `pino-pretty` package is installed (it is not a dependency), else the lines stay JSON.
 */
import { createRequire } from 'node:module';
import pino, { type Logger, type LoggerOptions, type DestinationStream } from 'pino';

export type { Logger };

// Exact paths only: a wildcard (`*.headers…`) makes pino walk every logged object on every line, which cost
// ~13% of proxy throughput in the bench. No log call nests headers or env deeper than these; configured
// secret values are scrubbed from whole lines regardless (see the redactor below).
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["proxy-authorization"]',
  'headers["set-cookie"]',
  'err.headers["set-cookie"]',
  'env',
];

/** Log lines are written to stdout in batches of about this many bytes… */
export const LOG_BATCH_BYTES = 4096;
/** …or after at most this long (ms), whichever comes first. */
export const LOG_FLUSH_MS = 100;

export interface LogOptions {
  /** Defaults to $LOG_LEVEL, else 'info'. */
  readonly level?: string;
  /** Strings that must never appear in a log line (expanded secrets). */
  readonly secrets?: readonly string[];
  /** A redactor shared with the config reloader, so secrets of later generations are scrubbed too. */
  readonly redactor?: Redactor;
  /** Where lines go; defaults to stdout. Tests pass a stream and read lines back as objects. */
  readonly destination?: DestinationStream;
  /** `json` (default) or `pretty`; defaults to $LOG_FORMAT. Ignored when `destination` is given. */
  readonly format?: string;
}

/**
 * The secret strings scrubbed from every log line. It can grow while the gateway runs (a reloaded config
 * brings new `${VAR}` values); strings shorter than 4 characters are ignored (scrubbing "on" would maim logs).
 */
export class Redactor {
  #list: string[] = [];
  readonly #censor: string;

  /** `censor` replaces each secret (the recorder uses a bare word, which YAML and prose read as plain text). */
  constructor(secrets: readonly string[] = [], censor = '[Redacted]') {
    this.#censor = censor;
    this.add(secrets);
  }

  /** Redact these too from now on. */
  add(secrets: readonly string[]): void {
    const long = secrets.filter((s) => s.length >= 4);
    // A secret with quotes, backslashes or control characters appears JSON-escaped in a line.
    const escaped = long.map((s) => JSON.stringify(s).slice(1, -1));
    const all = new Set([...this.#list, ...long, ...escaped]);
    // Longest first, so a secret containing another is scrubbed whole.
    this.#list = [...all].sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.#list.length;
  }

  /** The line with every secret replaced by the censor: cheap when none is present (one includes each). */
  scrub(line: string): string {
    let out = line;
    for (const secret of this.#list) if (out.includes(secret)) out = out.split(secret).join(this.#censor);
    return out;
  }
}

export function loggerOptions(options: LogOptions = {}): LoggerOptions {
  const redactor = options.redactor ?? new Redactor();
  if (options.secrets) redactor.add(options.secrets);
  const wanted = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const base: LoggerOptions = {
    // An unknown level would make pino throw at start: fall back to info (createLogger says so).
    level: wanted in pino.levels.values || wanted === 'silent' ? wanted : 'info',
    redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    base: { name: 'mcp-retrofit' },
  };
  if (options.redactor || redactor.size > 0) {
    // Runs on every line after serialisation, so no field or message can carry a secret out.
    base.hooks = { streamWrite: (line: string) => redactor.scrub(line) };
  }
  return base;
}

/** True when `pino-pretty` can be loaded from here (it is optional and not installed by default). */
export function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

export function createLogger(options: LogOptions = {}): Logger {
  const opts = loggerOptions(options);
  const wantsPretty = !options.destination && (options.format ?? process.env.LOG_FORMAT) === 'pretty';
  const pretty = wantsPretty && prettyAvailable();
  const logger = options.destination
    ? pino(opts, options.destination)
    : pretty
      ? pino(opts, pino.transport({ target: 'pino-pretty' }) as DestinationStream)
      : // Asynchronous, batched stdout. One write per line cost ~3 syscalls and a thread-pool round trip per
        // request (a write, its completion, futex wake-ups: strace under the bench), the largest single cost of
        // a passthrough exchange. Lines are gathered up to LOG_BATCH_BYTES and written together, and at least
        // every LOG_FLUSH_MS; pino flushes synchronously on exit, so a clean shutdown loses nothing.
        pino(opts, pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }));
  const level = options.level ?? process.env.LOG_LEVEL;
  if (level !== undefined && level !== logger.level) logger.warn({ level }, 'unknown LOG_LEVEL; using info');
  if (wantsPretty && !pretty) logger.warn('LOG_FORMAT=pretty needs the optional pino-pretty package; logging JSON');
  return logger;
}
