/**
 * The link to a stdio child: one JSON-RPC message per line each way (./ndjson.ts framing, bounded lines),
 * the child in its own process group so wrappers (`npx`, shell scripts) take their grandchildren with them.
 * The child starts when the link is made; sends before it runs are written to its stdin pipe all the same.
 * A line nested deeper than MAX_DEPTH is refused here, before anything recurses over it (a line past
 * OFFLOAD_BYTES comes as bytes, which the session checks in slices: LinkFrame); a line the session's handling
 * throws on is logged and dropped: either way the request it answers is told (ondropped).
 */
import { RetrofitError } from '../errors.js';
import { endsOf, sniffResponseId, textHead, type MessageEnds } from '../jsonrpc/sniff.js';
import { nestedTooDeeply } from '../jsonrpc/strict.js';
import type { LinkClosed, LinkDropped, LinkFrame, SendOutcome, UpstreamLink } from './link.js';
import { StdioChild, type ChildExit, type ChildSpec } from './stdio-child.js';

export interface StdioLinkOptions extends ChildSpec {
  /** The upstream's name, for errors. */
  readonly upstream: string;
  /** Scrubs secrets from what the child printed, before it goes into a client-facing error. */
  readonly scrub: (text: string) => string;
  /** Called once with the child's pid when it started (accounting). */
  readonly onStarted?: (pid: number) => void;
  /** Called once when the child is gone, before onclose (accounting). */
  readonly onEnded?: (closed: LinkClosed, pid: number | undefined) => void;
}

const ACCEPTED: SendOutcome = Object.freeze({ ok: true });

/** How long a child that closed its stdout may take to exit on its own before it is stopped. */
export const STDOUT_END_GRACE_MS = 1000;

export class StdioLink implements UpstreamLink {
  onframe: (frame: LinkFrame) => void = () => {};
  ondropped: (dropped: LinkDropped) => void = () => {};
  onclose: (closed: LinkClosed) => void = () => {};
  readonly #child: StdioChild | undefined;
  readonly #options: StdioLinkOptions;
  #closed: LinkClosed | undefined;
  /** The last send was refused for the child's full stdin (said once per episode in the logs). */
  #full = false;
  /** Stops a child that closed its stdout and did not exit within STDOUT_END_GRACE_MS. */
  #stdoutTimer: NodeJS.Timeout | undefined;
  /** The child was stopped for that: its end is its own failure, not a stop the gateway asked for. */
  #stdoutClosed = false;
  /** close() was called: the child's stdout ends because the gateway stops it. */
  #stopping = false;

  constructor(options: StdioLinkOptions) {
    this.#options = options;
    let child: StdioChild | undefined;
    try {
      const { command, args, env, cwd, maxLineBytes, maxQueuedBytes, killTimeoutMs, log } = options;
      child = new StdioChild({
        command, args, env, cwd, maxLineBytes, killTimeoutMs, log,
        ...(options.stderrLevel !== undefined && { stderrLevel: options.stderrLevel }),
        ...(maxQueuedBytes !== undefined && { maxQueuedBytes }),
        redact: options.scrub,
        onLine: (line) => this.#line(line),
        // Its two ends as they are: joined, a value cut at the head would read on into the tail.
        onOverlong: (line) => this.#dropped('size', line.bytes, line.head.length >= line.bytes ? endsOf(line.head) : { head: line.head, tail: line.tail }),
        onExit: (exit) => this.#exited(exit),
        onStdoutEnd: () => this.#stdoutEnded(),
      });
    } catch (err) {
      // spawn() throws synchronously only for invalid arguments: the same as any failure to start.
      const error = err instanceof Error ? err : new Error(String(err));
      queueMicrotask(() => this.#exited({ kind: 'spawn', code: null, signal: null, requested: false, reason: `spawn ${error.message}`, error }));
    }
    this.#child = child;
    if (child?.pid !== undefined) options.onStarted?.(child.pid);
  }

  get alive(): boolean {
    return this.#closed === undefined && (this.#child?.alive ?? false);
  }

  get pid(): number | undefined {
    return this.#child?.alive ? this.#child.pid : undefined;
  }

  send(json: string): SendOutcome {
    // NDJSON: a message must be one line. JSON text has line breaks only as whitespace between tokens
    // (inside strings they are escaped), so replacing them keeps the message.
    const line = json.includes('\n') || json.includes('\r') ? json.replace(/\r?\n|\r/g, ' ') : json;
    const written = this.#child?.write(line) ?? 'gone';
    if (written === 'written') {
      this.#full = false;
      return ACCEPTED;
    }
    if (written === 'gone') return { ok: false, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_EXITED', [this.#options.upstream, this.#closed?.reason ?? 'not running']) };
    // The child does not read its stdin: the client hears at once, rather than the gateway queueing without end.
    const queued = this.#child!.queuedBytes;
    if (!this.#full) this.#options.log.warn({ queued, bytes: line.length }, 'upstream child is not reading its stdin; messages for it are refused until it does');
    this.#full = true;
    return { ok: false, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_BUSY', [this.#options.upstream, `it has not read the ${queued} bytes already written to it`]) };
  }

  pause(): void {
    this.#child?.pause();
  }

  resume(): void {
    this.#child?.resume();
  }

  async close(): Promise<void> {
    this.#stopping = true;
    await this.#child?.stop();
  }

  #line(line: string | Buffer): void {
    const bytes = typeof line === 'string' ? Buffer.byteLength(line) : line.length;
    // A line that came as bytes is checked by the session, in slices and in order (LinkFrame).
    if (typeof line === 'string' && nestedTooDeeply(line)) return this.#dropped('depth', bytes, endsOf(line));
    try {
      this.onframe({ data: line });
    } catch (err) {
      this.#options.log.error({ err, bytes, head: textHead(line) }, 'upstream message could not be handled; dropped');
      this.#dropped('failed', bytes, endsOf(line));
    }
  }

  /** Tell the session of a message not passed on, with the id its ends show. */
  #dropped(reason: LinkDropped['reason'], bytes: number, ends: MessageEnds): void {
    const id = sniffResponseId(ends);
    try {
      this.ondropped({ reason, bytes, ...(id !== undefined && { id }) });
    } catch (err) {
      this.#options.log.error({ err, reason, id }, 'a dropped upstream message could not be reported');
    }
  }

  /**
   * The child closed its stdout: it can never answer again. One that exits soon after is the usual end (its
   * exit says why); one still running after STDOUT_END_GRACE_MS is stopped, and its session ends as if it had
   * exited, so its requests are answered at once rather than each at timeoutMs.
   */
  #stdoutEnded(): void {
    if (this.#closed || this.#stopping || !this.#child?.alive) return;
    this.#stdoutTimer = setTimeout(() => {
      if (this.#closed || this.#stopping || !this.#child?.alive) return;
      this.#stdoutClosed = true;
      this.#options.log.warn('upstream child closed its stdout but kept running; stopped');
      void this.#child.stop();
    }, STDOUT_END_GRACE_MS);
    this.#stdoutTimer.unref();
  }

  #exited(exit: ChildExit): void {
    if (this.#stdoutTimer) clearTimeout(this.#stdoutTimer);
    if (this.#closed) return;
    // Already scrubbed line by line as it was kept (StdioChild's redact).
    const tail = this.#child?.stderrTail() ?? '';
    const stderr = tail === '' ? undefined : tail;
    this.#closed = {
      kind: exit.requested && !this.#stdoutClosed ? 'requested' : exit.kind,
      reason: this.#stdoutClosed ? 'closed its stdout' : exit.reason,
      ...(stderr !== undefined && { stderr }),
      ...(exit.error && { error: exit.error }),
    };
    // Called from the child's exit promise (or a microtask): a throw here would be an unhandled rejection.
    for (const tell of [() => this.#options.onEnded?.(this.#closed!, this.#child?.pid), () => this.onclose(this.#closed!)]) {
      try {
        tell();
      } catch (err) {
        this.#options.log.error({ err }, 'the end of an upstream child could not be handled');
      }
    }
  }
}
