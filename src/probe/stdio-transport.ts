/**
 * The SDK client Transport over a child in its own process group (src/upstream/spawn.ts), for `check --probe`.
 * It replaces the SDK's StdioClientTransport, which signals only the child it spawned: behind `npx` that is
 * `npm exec`, whose real server survives it, keeps the pipe open, and so keeps `check` from ever exiting.
 * Framing is the gateway's own NDJSON splitter: one message per line, bounded, non-JSON lines skipped.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject } from '../json.js';
import { createLineSplitter } from '../upstream/ndjson.js';
import { spawnGroup, type GroupExit, type ProcessGroup, type SpawnGroupOptions } from '../upstream/spawn.js';

/** Settings of a GroupStdioTransport. */
export interface GroupStdioOptions {
  readonly spawn: SpawnGroupOptions;
  /** Longest accepted stdout line in bytes; longer lines are dropped and reported through onerror. */
  readonly maxLineBytes: number;
  /** Time between SIGTERM and SIGKILL when closing (ms). */
  readonly graceMs: number;
}

/** A client transport to a stdio server that never outlives close(), grandchildren included. */
export class GroupStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** The group's end, once it has ended (undefined while it runs or before start). */
  exit: GroupExit | undefined;
  readonly #options: GroupStdioOptions;
  #group: ProcessGroup | undefined;
  #closed = false;

  constructor(options: GroupStdioOptions) {
    this.#options = options;
  }

  /** The last stderr lines of the child (bounded, redacted). */
  stderrTail(): string {
    return this.#group?.stderrTail() ?? '';
  }

  /**
   * Resolves once the child has ended, or after `ms`. A child that dies early often fails a write (EPIPE)
   * before its exit is known; waiting a moment lets the error say how it ended and what it wrote.
   */
  async settle(ms: number): Promise<void> {
    const group = this.#group;
    if (!group?.alive) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([group.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  async start(): Promise<void> {
    if (this.#group) throw new Error('GroupStdioTransport already started');
    const group = spawnGroup(this.#options.spawn);
    this.#group = group;
    const lines = createLineSplitter({
      maxLineBytes: this.#options.maxLineBytes,
      onLine: (line) => this.#line(line),
      onOverlong: (line) => this.onerror?.(new Error(`stdout line of ${line.bytes} bytes exceeds ${this.#options.maxLineBytes}; dropped`)),
    });
    group.child.stdout.on('data', (chunk: Buffer) => lines.push(chunk));
    group.child.stdout.on('end', () => lines.end());
    void group.exited.then((exit) => {
      this.exit = exit;
      this.#ended();
    });
    await group.spawned;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#group?.child.stdin;
    if (!stdin || this.#closed || !stdin.writable) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Stops the whole group (SIGTERM, SIGKILL after the grace) and resolves once it is gone. */
  async close(): Promise<void> {
    const group = this.#group;
    if (group) this.exit = await group.stop(this.#options.graceMs);
    this.#ended();
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }

  #line(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      // Servers print banners to stdout; the SDK's own transport reports them the same way and goes on.
      this.onerror?.(new Error(`non-JSON line on stdout skipped: ${line.slice(0, 200)}`));
      return;
    }
    if (isJsonObject(message) && message.jsonrpc === '2.0') this.onmessage?.(message as unknown as JSONRPCMessage);
    else this.onerror?.(new Error(`stdout line is not a JSON-RPC message: ${line.slice(0, 200)}`));
  }
}
