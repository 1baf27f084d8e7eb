/**
 * pino options and redaction. Headers that carry credentials are redacted by path; values that came from
 * `${VAR}` expansion (config.secrets) are scrubbed from every log line by the formatter below.
 */
import pino, { type Logger, type LoggerOptions, type DestinationStream } from 'pino';

export type { Logger };

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["proxy-authorization"]',
  'headers["set-cookie"]',
  '*.headers.authorization',
  '*.headers.cookie',
  'env',
  '*.env',
];

export interface LogOptions {
  /** Defaults to $LOG_LEVEL, else 'info'. */
  readonly level?: string;
  /** Strings that must never appear in a log line (expanded secrets). */
  readonly secrets?: readonly string[];
  /** Where lines go; defaults to stdout. Tests pass a stream and read lines back as objects. */
  readonly destination?: DestinationStream;
}

function scrubber(secrets: readonly string[]): ((value: string) => string) | undefined {
  const list = secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  if (list.length === 0) return undefined;
  return (value) => {
    let out = value;
    for (const secret of list) if (out.includes(secret)) out = out.split(secret).join('[Redacted]');
    return out;
  };
}

export function loggerOptions(options: LogOptions = {}): LoggerOptions {
  const scrub = scrubber(options.secrets ?? []);
  const base: LoggerOptions = {
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    base: { name: 'mcp-retrofit' },
  };
  if (scrub) {
    // Runs on every line after serialisation: cheap when no secret is present (one includes per secret).
    base.hooks = {
      streamWrite: (line: string) => scrub(line),
    };
  }
  return base;
}

export function createLogger(options: LogOptions = {}): Logger {
  return options.destination ? pino(loggerOptions(options), options.destination) : pino(loggerOptions(options));
}
