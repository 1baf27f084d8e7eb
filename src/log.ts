/**
 * pino options and redaction. Headers that carry credentials are redacted by path; values that came from
 * `${VAR}` expansion, stdio `env:` and upstream `headers:` (config.secrets) are scrubbed from every log line
 * by the streamWrite hook below. Lines are JSON; `LOG_FORMAT=pretty` pretty-prints only when the optional
 * `pino-pretty` package is installed (it is not a dependency), else the lines stay JSON.
 */
import { write, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import pino, { type Logger, type LoggerOptions, type DestinationStream } from 'pino';

export type { Logger };

/** The part of a logger the session core and the pipeline write with: a pino logger, or a LazyLog. */
export type Log = Pick<Logger, 'error' | 'warn' | 'info' | 'debug' | 'isLevelEnabled'>;

/**
 * A Log whose pino child is bound only when it writes a line. An exchange's lines carry its request id,
 * upstream and session, and binding them (a pino child: ~0.5–1 µs) is wasted on the exchanges that log
 * nothing but their access line (written from the record: src/http/server/exchange-log.ts). Its levels are its
 * parent's, as a child's are.
 */
export class LazyLog implements Log {
  readonly #parent: Logger;
  readonly #bindings: () => pino.Bindings;
  #bound: Logger | undefined;

  constructor(parent: Logger, bindings: () => pino.Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  /** The child, bound now if it was not yet. */
  get logger(): Logger {
    return (this.#bound ??= this.#parent.child(this.#bindings()));
  }

  isLevelEnabled(level: string): boolean {
    return this.#parent.isLevelEnabled(level);
  }

  error(...args: unknown[]): void {
    this.#write(50, 'error', args);
  }

  warn(...args: unknown[]): void {
    this.#write(40, 'warn', args);
  }

  info(...args: unknown[]): void {
    this.#write(30, 'info', args);
  }

  debug(...args: unknown[]): void {
    this.#write(20, 'debug', args);
  }

  /** A line at `level` (pino's number for `method`), binding the child only when the level is enabled. */
  #write(level: number, method: 'error' | 'warn' | 'info' | 'debug', args: unknown[]): void {
    if (this.#parent.levelVal > level) return;
    const logger = this.logger;
    Reflect.apply(logger[method], logger, args);
  }
}

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
export const LOG_BATCH_BYTES = 65_536;
/** …or after at most this long (ms), whichever comes first. */
export const LOG_FLUSH_MS = 100;
/**
 * Most bytes waiting to be written: when stdout does not keep up (a stalled pipe, a flood of upstream
 * stderr), lines beyond it are dropped and counted, and a line says how many once writing catches up.
 */
export const LOG_MAX_PENDING = 8 * 1024 * 1024;

/** Writers with lines still to write when the process exits. */
const live = new Set<BatchedWriter>();
let exitHooked = false;

/**
 * A pino destination that gathers lines and writes them to a file descriptor in batches, asynchronously.
 * Each line is encoded straight into a batch buffer, and buffers are reused once written: no per-line or
 * per-batch allocation, no join of the pending strings (sonic-boom's `minLength` batching measured the byte
 * length of its whole growing string on every line: 4–5 µs per line at 4 KiB; joining 16 KiB of pino's lines
 * and encoding the result cost ~0.4–1.6 µs per line). Lines keep their order: one write at a time, the next
 * batch waits for it. What is pending at exit is written synchronously (a write already in flight completes
 * in the kernel); EAGAIN (a full non-blocking pipe) is retried, other errors drop the batch (stdout is gone).
 */
export class BatchedWriter implements DestinationStream {
  readonly #fd: number;
  readonly #batch: number;
  /** A batch buffer's size: a batch's worth, and room for the line that completes it. */
  readonly #capacity: number;
  readonly #timer: NodeJS.Timeout;
  readonly #maxPending: number;
  /** The buffer lines are encoded into, and how much of it is used. */
  #buf: Buffer;
  #used = 0;
  /** Filled batches (views of their buffers) waiting for the write under way. */
  #sealed: Buffer[] = [];
  /** Bytes in #sealed and #used. */
  #pending = 0;
  /** Written batch buffers, ready for reuse (at most two kept). */
  #spare: Buffer[] = [];
  /** The memory of the batch buffers this writer made: only those are reused (a line's own Buffer may be a
   * view of Node's shared pool). */
  readonly #mine = new WeakSet<ArrayBufferLike>();
  #writing = false;
  #waiters: (() => void)[] = [];
  #dropped = 0;

  constructor(fd: number, batchBytes = LOG_BATCH_BYTES, flushMs = LOG_FLUSH_MS, maxPending = LOG_MAX_PENDING) {
    this.#fd = fd;
    this.#batch = batchBytes;
    this.#capacity = Math.max(2 * batchBytes, 4096);
    this.#maxPending = maxPending;
    this.#buf = this.#allocate();
    this.#timer = setInterval(() => this.#start(), flushMs);
    this.#timer.unref();
    live.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', () => {
        for (const w of live) w.flushSync();
      });
    }
  }

  write(line: string): boolean {
    if (this.#pending + line.length > this.#maxPending) {
      this.#dropped += 1;
      return true;
    }
    this.#encode(line);
    // A full batch, or a line that was a batch of its own.
    if (this.#used >= this.#batch || this.#sealed.length > 0) this.#start();
    return true;
  }

  /** Write what is pending now; `done` runs once it is written. */
  flush(done?: () => void): void {
    if (done) this.#waiters.push(done);
    this.#start();
    if (!this.#writing) this.#wake();
  }

  /** Write what is pending synchronously (exit). */
  flushSync(): void {
    this.#seal();
    for (const buf of this.#sealed.splice(0)) {
      let offset = 0;
      for (let tries = 0; offset < buf.length && tries < 1000; tries++) {
        try {
          offset += writeSync(this.#fd, buf, offset, buf.length - offset);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') break;
        }
      }
    }
    this.#pending = 0;
  }

  /** Stop the periodic flush and write what is pending (tests, shutdown). */
  end(): void {
    clearInterval(this.#timer);
    live.delete(this);
    this.flushSync();
  }

  /** Encode `line` at the end of the batch buffer (a line larger than a buffer becomes a batch of its own). */
  #encode(line: string): void {
    // A UTF-8 encoding takes at most 3 bytes per UTF-16 unit.
    const most = line.length * 3;
    if (this.#used + most > this.#capacity) {
      this.#seal();
      if (most > this.#capacity) {
        const own = Buffer.from(line, 'utf8');
        this.#sealed.push(own);
        this.#pending += own.length;
        return;
      }
    }
    const n = this.#buf.write(line, this.#used, 'utf8');
    this.#used += n;
    this.#pending += n;
  }

  /** The lines encoded so far become a batch; encoding goes on in a spare (or new) buffer. */
  #seal(): void {
    if (this.#dropped > 0) {
      const notice = `${JSON.stringify({ level: 40, time: Date.now(), name: 'mcp-retrofit', dropped: this.#dropped, msg: 'log lines dropped: the log output did not keep up' })}\n`;
      this.#dropped = 0;
      this.#encode(notice);
    }
    if (this.#used === 0) return;
    this.#sealed.push(this.#buf.subarray(0, this.#used));
    this.#buf = this.#spare.pop() ?? this.#allocate();
    this.#used = 0;
  }

  #allocate(): Buffer {
    const buf = Buffer.allocUnsafe(this.#capacity);
    this.#mine.add(buf.buffer);
    return buf;
  }

  #start(): void {
    if (this.#writing) return;
    this.#seal();
    if (this.#sealed.length === 0) return;
    this.#writing = true;
    const batches = this.#sealed;
    this.#sealed = [];
    this.#send(batches.length === 1 ? batches[0]! : Buffer.concat(batches), 0, batches);
  }

  /** Write `buf` from `offset`; `batches` are the buffers it came from, reused once it is written. */
  #send(buf: Buffer, offset: number, batches: readonly Buffer[]): void {
    write(this.#fd, buf, offset, buf.length - offset, null, (err, written) => {
      if (err && err.code === 'EAGAIN') {
        setTimeout(() => this.#send(buf, offset, batches), 10).unref();
        return;
      }
      if (!err && offset + written < buf.length) {
        this.#send(buf, offset + written, batches);
        return;
      }
      this.#pending = Math.max(0, this.#pending - buf.length);
      for (const b of batches) if (this.#mine.has(b.buffer) && this.#spare.length < 2) this.#spare.push(Buffer.from(b.buffer, b.byteOffset, this.#capacity));
      this.#writing = false;
      if (this.#used >= this.#batch || this.#sealed.length > 0 || (this.#waiters.length > 0 && this.#used > 0)) this.#start();
      if (!this.#writing) this.#wake();
    });
  }

  #wake(): void {
    for (const done of this.#waiters.splice(0)) done();
  }
}

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

/** A JSON literal: true, false, null, a number. */
const JSON_LITERAL = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

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

  /**
   * Redact these too from now on: not those shorter than 4 characters, nor JSON literals (`true`, `null`,
   * `1234`): a value that is a switch or a count is no secret, and scrubbing it from a JSON log line would turn
   * every `"aborted":true` into invalid JSON.
   */
  add(secrets: readonly string[]): void {
    const long = secrets.filter((s) => s.length >= 4 && !JSON_LITERAL.test(s));
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
        // every LOG_FLUSH_MS; what is pending at exit is written synchronously, so a clean shutdown loses nothing.
        pino(opts, new BatchedWriter(1));
  const level = options.level ?? process.env.LOG_LEVEL;
  if (level !== undefined && level !== logger.level) logger.warn({ level }, 'unknown LOG_LEVEL; using info');
  if (wantsPretty && !pretty) logger.warn('LOG_FORMAT=pretty needs the optional pino-pretty package; logging JSON');
  return logger;
}

const S = pino.symbols;
/** Not in pino's typings, though in pino.symbols: a child's `msgPrefix`. */
const MSG_PREFIX: symbol | undefined = (pino.symbols as unknown as Record<string, symbol | undefined>).msgPrefixSym;

/** What a logger holds of pino's line format (pino.symbols is pino's public way in). */
interface PinoInternals {
  readonly [S.streamSym]: DestinationStream & { readonly [S.needsMetadataGsym]?: boolean };
  readonly [S.lsCacheSym]: Readonly<Record<number, string>>;
  readonly [S.timeSym]: () => string;
  readonly [S.chindingsSym]: string;
  readonly [S.endSym]: string;
  readonly [S.hooksSym]: { readonly streamWrite?: (line: string) => string };
  readonly [S.mixinSym]?: unknown;
  readonly [S.formattersSym]: { readonly log?: unknown };
  readonly [S.nestedKeySym]?: string | null;
  readonly [S.messageKeySym]: string;
}

/**
 * Log one info line whose fields the caller serialised itself (`,"key":value` each, the exchange line: one per
 * request, src/http/server/exchange-log.ts), byte for byte as `logger.info(fields, msg)` would write it: level,
 * time, the logger's bindings, the fields, the message. It skips pino's walk over an object (a lookup of a
 * serializer and a stringifier per key, every key re-escaped), ~1 µs of every exchange. The fields must not
 * hold what REDACT_PATHS names (no headers, no env); configured secrets are still scrubbed (the streamWrite
 * hook). A logger that shapes its lines otherwise (a mixin, a log formatter, a nested key, a message prefix, a
 * stream that wants the line's metadata: pino-pretty) gets the fields as an object through pino itself.
 */
export function infoFields(logger: Logger, fields: string, msg: string): void {
  if (logger.levelVal > 30) return;
  const l = logger as unknown as PinoInternals;
  const stream = l[S.streamSym];
  if (stream[S.needsMetadataGsym] === true || l[S.mixinSym] || l[S.formattersSym].log || l[S.nestedKeySym] || l[S.messageKeySym] !== 'msg' || (MSG_PREFIX !== undefined && (logger as unknown as Record<symbol, unknown>)[MSG_PREFIX])) {
    logger.info(JSON.parse(`{${fields.slice(1)}}`) as object, msg);
    return;
  }
  const line = `${l[S.lsCacheSym][30]}${l[S.timeSym]()}${l[S.chindingsSym]}${fields},"msg":${JSON.stringify(msg)}${l[S.endSym]}`;
  const hook = l[S.hooksSym].streamWrite;
  stream.write(hook ? hook(line) : line);
}
