/**
 * One stdio upstream child process: started and stopped as its own process group (./spawn.ts, the same for
 * every child the project runs), NDJSON on stdout, stderr to the logs and into a bounded tail that explains
 * a failure, and a bounded kill. What waits to be read on its stdin is bounded too: a child that does not
 * read cannot make the gateway hold an unbounded queue for it (write answers 'full' past the bound).
 */
import { isJsonObject, type Json } from '../json.js';
import { headNamesAnswer, textHead } from '../jsonrpc/sniff.js';
import type { Logger } from '../log.js';
import { argumentStrings, textScrubber } from '../record/scrub.js';
import { createLineSplitter, type OverlongLine } from './ndjson.js';
import { spawnGroup, type GroupExit, type ProcessGroup } from './spawn.js';

/** Why a child stopped: it could not start (`spawn`) or it ended (`exited`, including when we stopped it). */
export type ChildExit = GroupExit;

/** How to start a child and bound what it prints: what the stdio link passes on as given. */
export interface ChildSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Longest accepted stdout line (bytes): limits.maxResultBytes. */
  readonly maxLineBytes: number;
  /** Most bytes waiting on its stdin before a write is refused (default: maxLineBytes). */
  readonly maxQueuedBytes?: number;
  /** Grace period between SIGTERM and SIGKILL. */
  readonly killTimeoutMs: number;
  /** Bound to upstream and session. */
  readonly log: Logger;
  /** The level its stderr lines are logged at (`off`: kept only for error messages); default debug. */
  readonly stderrLevel?: 'info' | 'debug' | 'off';
}

export interface StdioChildOptions extends ChildSpec {
  /** Scrubs secrets from stderr lines before they are kept for error messages. */
  readonly redact?: (line: string) => string;
  /**
   * Every non-empty stdout line that may be a JSON-RPC message (it starts with `{` or `[`), without its
   * terminator: decoded, or as bytes past OFFLOAD_BYTES (in shared memory, never decoded here: ./ndjson.ts).
   */
  readonly onLine: (line: string | Buffer) => void;
  /**
   * A stdout line over `maxLineBytes` (dropped), once: as soon as it passes the bound when its head names the
   * answer's id (a child may never end the line), else when it ends, with both ends (the SDKs write the id last).
   */
  readonly onOverlong: (line: OverlongLine) => void;
  /** Called exactly once, after the process is gone and its stdout drained. */
  readonly onExit: (exit: ChildExit) => void;
  /** The child closed its stdout (it can never answer again), whether or not it exits. */
  readonly onStdoutEnd?: () => void;
}

const LOG_SAMPLE = 200;

/**
 * The first character of a line that is not white space (a code unit of text; a byte of bytes, past ASCII
 * white space and a byte-order mark, as trimStart skips them); NaN for a blank line.
 */
function firstNonSpace(line: string | Buffer): number {
  if (typeof line === 'string') return line.trimStart().charCodeAt(0);
  let i = 0;
  for (;;) {
    const b = line[i];
    if (b === undefined) return NaN;
    if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) i += 1;
    else if (b === 0xef && line[i + 1] === 0xbb && line[i + 2] === 0xbf) i += 3;
    else return b;
  }
}
/** Lines kept to explain a failure (the tail quoted in errors). */
const STDERR_TAIL = { maxLines: 10, maxChars: 2048 } as const;

/** tools/call requests whose argument values a logged stderr line must not show. */
const RECENT_CALLS = 8;
const TOOLS_CALL = /"method"\s*:\s*"tools\/call"/;

/**
 * What a server echoes on stderr is often what it was sent (sequential-thinking prints each thought): a logged
 * line hides the argument values of the last RECENT_CALLS tools/call requests written to the child, as
 * recordings hide them (src/record/scrub.ts). Lines are kept as written and parsed only when a stderr line is
 * about to be logged — never when stderr is not logged at a level the logger emits.
 */
class RecentArguments {
  readonly #lines: string[] = [];
  #scrub: ((text: string) => string) | undefined;

  note(line: string): void {
    if (!TOOLS_CALL.test(line)) return;
    this.#lines.push(line);
    if (this.#lines.length > RECENT_CALLS) this.#lines.shift();
    this.#scrub = undefined;
  }

  scrub(text: string): string {
    if (this.#lines.length === 0) return text;
    this.#scrub ??= textScrubber(this.#lines.flatMap((line) => argumentStrings(argumentsOf(line))));
    return this.#scrub(text);
  }
}

function argumentsOf(line: string): Json | undefined {
  try {
    const message: unknown = JSON.parse(line);
    return isJsonObject(message) && isJsonObject(message.params) ? message.params.arguments : undefined;
  } catch {
    return undefined;
  }
}

/** How a child's stderr lines are logged: servers echo what they are sent there, so not at info unless asked. */
function stderrLogger(log: Logger, level: 'info' | 'debug' | 'off', recent: RecentArguments | undefined): (line: string) => void {
  if (level === 'off' || recent === undefined) return () => {};
  if (level === 'info') return (line) => log.info({ stream: 'stderr', line: recent.scrub(line) }, 'upstream stderr');
  return (line) => log.debug({ stream: 'stderr', line: recent.scrub(line) }, 'upstream stderr');
}

/** What became of a write: on its way, refused (`full`: too much already waits), or the child is not running. */
export type WriteResult = 'written' | 'full' | 'gone';

/** A running (or failed) child. `pid` is undefined when the spawn failed. */
export class StdioChild {
  readonly pid: number | undefined;
  /** Resolves with the exit once the child is gone. */
  readonly exited: Promise<ChildExit>;
  readonly #group: ProcessGroup;
  readonly #options: StdioChildOptions;
  /** Only while stderr lines are logged at a level the logger emits. */
  readonly #recent: RecentArguments | undefined;

  constructor(options: StdioChildOptions) {
    this.#options = options;
    const { log } = options;
    const level = options.stderrLevel ?? 'debug';
    this.#recent = level !== 'off' && log.isLevelEnabled(level) ? new RecentArguments() : undefined;
    this.#group = spawnGroup({
      command: options.command,
      args: options.args,
      env: options.env,
      cwd: options.cwd,
      stderr: { ...STDERR_TAIL, ...(options.redact && { redact: options.redact }) },
      onStderrLine: stderrLogger(log, level, this.#recent),
      onHandlerError: (err) => log.error({ err, stream: 'stderr' }, 'upstream stderr could not be handled; dropped'),
    });
    this.pid = this.#group.pid;
    this.exited = this.#group.exited;
    void this.exited.then((exit) => options.onExit(exit)).catch((err: unknown) => log.error({ err }, 'the exit of an upstream child could not be handled'));

    // Nothing a callback throws may escape a stream's data handler (it would end the process), nor stop the
    // splitter halfway through a chunk (the lines after it would be lost): each line is handled on its own.
    const guarded = <A>(what: string, handle: (arg: A) => void) => (arg: A): void => {
      try {
        handle(arg);
      } catch (err) {
        log.error({ err }, `${what} could not be handled; dropped`);
      }
    };
    const stdout = createLineSplitter({
      maxLineBytes: options.maxLineBytes,
      onLine: guarded('a line of upstream stdout', (line: string) => this.#line(line)),
      onLargeLine: guarded('a line of upstream stdout', (line: Buffer) => this.#line(line)),
      reportEarly: headNamesAnswer,
      onOverlong: guarded('an over-long line of upstream stdout', (line: OverlongLine) => {
        log.warn({ bytes: line.bytes, complete: line.complete, limit: options.maxLineBytes, head: line.head.slice(0, LOG_SAMPLE) }, 'over-long line on upstream stdout dropped');
        options.onOverlong(line);
      }),
    });
    const child = this.#group.child;
    child.stdout.on('data', guarded('upstream stdout', (chunk: Buffer) => stdout.push(chunk)));
    child.stdout.on('end', guarded('the end of upstream stdout', () => {
      stdout.end();
      options.onStdoutEnd?.();
    }));
  }

  /** True until the child has exited or failed to spawn. */
  get alive(): boolean {
    return this.#group.alive;
  }

  /** The last lines the child wrote to stderr (bounded, redacted), `\n`-joined; '' when none. */
  stderrTail(): string {
    return this.#group.stderrTail();
  }

  /**
   * Write one message (JSON text without line breaks) as one line — unless more than maxQueuedBytes already
   * wait for the child to read them (`full`: nothing is written). One message is always taken when nothing
   * waits, however long it is.
   */
  write(json: string): WriteResult {
    const stdin = this.#group.child.stdin;
    if (!this.#group.alive || stdin.destroyed || !stdin.writable) return 'gone';
    const queued = stdin.writableLength;
    if (queued > 0 && queued + json.length > (this.#options.maxQueuedBytes ?? this.#options.maxLineBytes)) return 'full';
    stdin.write(`${json}\n`);
    this.#recent?.note(json);
    return 'written';
  }

  /** Bytes written that the child has not read yet (beyond what its pipe holds). */
  get queuedBytes(): number {
    return this.#group.child.stdin.writableLength;
  }

  /** Stop reading the child's stdout (it blocks once the pipe fills) until resume(). */
  pause(): void {
    this.#group.child.stdout.pause();
  }

  resume(): void {
    this.#group.child.stdout.resume();
  }

  /** Stop the child: close stdin and SIGTERM its group, SIGKILL after the grace period. Resolves on exit. */
  stop(): Promise<ChildExit> {
    return this.#group.stop(this.#options.killTimeoutMs);
  }

  #line(line: string | Buffer): void {
    // Servers print banners and debug output to stdout: a line that cannot be JSON is skipped here, cheaply;
    // one that starts like JSON but does not parse is skipped by the session that parses it.
    const first = firstNonSpace(line);
    if (first !== 0x7b && first !== 0x5b) {
      this.#options.log.warn({ line: textHead(line, LOG_SAMPLE), bytes: typeof line === 'string' ? Buffer.byteLength(line) : line.length }, 'non-JSON line on upstream stdout skipped');
      return;
    }
    this.#options.onLine(line);
  }
}
