/**
 * The link to a stdio child: one JSON-RPC message per line each way (./ndjson.ts framing, bounded lines),
 * the child in its own process group so wrappers (`npx`, shell scripts) take their grandchildren with them.
 * The child starts when the link is made; sends before it runs are written to its stdin pipe all the same.
 */
import { RetrofitError } from '../errors.js';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';
import type { LinkClosed, LinkFrame, LinkOverlong, SendOutcome, UpstreamLink } from './link.js';
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

export class StdioLink implements UpstreamLink {
  onframe: (frame: LinkFrame) => void = () => {};
  onoverlong: (overlong: LinkOverlong) => void = () => {};
  onclose: (closed: LinkClosed) => void = () => {};
  readonly #child: StdioChild | undefined;
  readonly #options: StdioLinkOptions;
  #closed: LinkClosed | undefined;

  constructor(options: StdioLinkOptions) {
    this.#options = options;
    let child: StdioChild | undefined;
    try {
      const { command, args, env, cwd, maxLineBytes, killTimeoutMs, log } = options;
      child = new StdioChild({
        command, args, env, cwd, maxLineBytes, killTimeoutMs, log,
        redact: options.scrub,
        onLine: (line) => this.onframe({ data: line }),
        onOverlong: (line) => {
          const id = sniffResponseId(endsOf(line.head.length >= line.bytes ? line.head : `${line.head}${line.tail}`));
          this.onoverlong({ bytes: line.bytes, ...(id !== undefined && { id }) });
        },
        onExit: (exit) => this.#exited(exit),
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
    if (this.#child?.write(line)) return ACCEPTED;
    return { ok: false, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_EXITED', [this.#options.upstream, this.#closed?.reason ?? 'not running']) };
  }

  pause(): void {
    this.#child?.pause();
  }

  resume(): void {
    this.#child?.resume();
  }

  async close(): Promise<void> {
    await this.#child?.stop();
  }

  #exited(exit: ChildExit): void {
    if (this.#closed) return;
    // Already scrubbed line by line as it was kept (StdioChild's redact).
    const tail = this.#child?.stderrTail() ?? '';
    const stderr = tail === '' ? undefined : tail;
    this.#closed = {
      kind: exit.requested ? 'requested' : exit.kind,
      reason: exit.reason,
      ...(stderr !== undefined && { stderr }),
      ...(exit.error && { error: exit.error }),
    };
    this.#options.onEnded?.(this.#closed, this.#child?.pid);
    this.onclose(this.#closed);
  }
}
