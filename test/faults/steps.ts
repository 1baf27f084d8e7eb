/**
 * What a fault upstream writes for one request, as steps (./brain.ts makes them), and how a transport runs
 * them: each transport is a Sink that frames a JSON-RPC message its own way (an NDJSON line, an SSE event, a
 * JSON body) and knows what "reset" and "the upstream dies" mean for it. Every byte written for a request is
 * recorded under the session's tag, so fault-free sessions can be compared with what the client got.
 */

/** One thing to write (or do) for a request. */
export type Step =
  /** A message, framed, in one write. `answer`: it answers the request. */
  | { readonly op: 'send'; readonly json: Buffer; readonly answer?: boolean }
  /** A message, framed, written in two parts `at` bytes apart with a pause between (a half line in flight). */
  | { readonly op: 'split'; readonly json: Buffer; readonly at: number; readonly pauseMs: number; readonly answer?: boolean }
  /** The first `fraction` of a framed message, and nothing more. */
  | { readonly op: 'partial'; readonly json: Buffer; readonly fraction: number }
  /** A frame that starts with `head` and goes on with filler up to `capBytes`, waits `holdMs`, then is cut off. */
  | { readonly op: 'endless'; readonly head: Buffer; readonly capBytes: number; readonly holdMs: number }
  | { readonly op: 'pause'; readonly ms: number }
  /** Response headers now (HTTP), so a later reset comes after them. */
  | { readonly op: 'flush' }
  /** This exchange's connection is reset. */
  | { readonly op: 'reset' }
  /** The upstream dies (for this session). */
  | { readonly op: 'kill' };

/** One transport's way of writing a request's steps. */
export interface Sink {
  /** Bytes before and after a message's JSON text in one frame. */
  frame(json: Buffer): Buffer;
  /** A frame's opening bytes (for an endless frame) and its closing ones. */
  readonly opening: Buffer;
  readonly closing: Buffer;
  /** Write; resolves once written (after a drain when backed up) or when the connection is gone. */
  write(bytes: Buffer): Promise<void>;
  flush(): void;
  reset(): void;
  kill(): void;
  /** The connection is gone: nothing more is written. */
  readonly gone: boolean;
}

/** What the upstream wrote for one request. */
export interface Written {
  /** Every byte, in order, framing included. */
  readonly bytes: Buffer[];
  /** The JSON text of each well-formed message sent whole (notifications and answers). */
  readonly messages: string[];
  /** How many answers to the request were sent whole. */
  answers: number;
  /** performance.now() when its first answer went out (the suite's clients share this clock). */
  answeredAt?: number;
  /** It ended as planned (not cut off by a fault or a vanished peer). */
  complete: boolean;
}

/** What every upstream wrote, by tag (a session's kind and seed) and request id. */
export class Recorder {
  readonly #byTag = new Map<string, Map<string, Written>>();
  /** Tags already taken: what an upstream still writes for them (an endless answer) is not kept. */
  readonly #taken = new Set<string>();

  /** The record of one request (made on first use). `id` is the id as the upstream saw it. */
  entry(tag: string, id: unknown): Written {
    if (tag === '' || this.#taken.has(tag)) return { bytes: [], messages: [], answers: 0, complete: false };
    let byId = this.#byTag.get(tag);
    if (!byId) this.#byTag.set(tag, (byId = new Map()));
    const key = JSON.stringify(id);
    let written = byId.get(key);
    if (!written) byId.set(key, (written = { bytes: [], messages: [], answers: 0, complete: false }));
    return written;
  }

  /** Everything recorded for a session, by request id (JSON of the id as the upstream saw it). */
  take(tag: string): Map<string, Written> {
    const byId = this.#byTag.get(tag) ?? new Map<string, Written>();
    this.#byTag.delete(tag);
    this.#taken.add(tag);
    return byId;
  }
}

/**
 * The requests of one upstream session that are still being answered, so a `notifications/cancelled` from the
 * client stops what is left of an answer (as the SDK's servers do: a cancelled request is never answered).
 */
export class Cancellations {
  readonly #cancelled = new Set<string>();

  /** True once `id` was cancelled. */
  of(id: unknown): () => boolean {
    const key = JSON.stringify(id);
    return () => this.#cancelled.has(key);
  }

  /** Take note of a client message: a cancellation (true when it was one). */
  observe(message: Record<string, unknown>): boolean {
    if (message.method !== 'notifications/cancelled') return false;
    const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id === 'string' || typeof id === 'number') this.#cancelled.add(JSON.stringify(id));
    return true;
  }

  /** The request was answered, or given up: forget it. */
  done(id: unknown): void {
    this.#cancelled.delete(JSON.stringify(id));
  }
}

const FILLER = Buffer.alloc(16 * 1024, 'x');

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Run `steps` on `sink`, recording into `written`; stop when `cancelled()` says the client cancelled the request. */
export async function runSteps(steps: readonly Step[], sink: Sink, written: Written, cancelled: () => boolean = () => false): Promise<void> {
  const write = (bytes: Buffer): Promise<void> => {
    written.bytes.push(bytes);
    return sink.write(bytes);
  };
  for (const step of steps) {
    if (sink.gone || cancelled()) return;
    switch (step.op) {
      // A message is recorded before its last bytes go: the client may have it before a drain resolves the write.
      case 'send':
        written.messages.push(step.json.toString('utf8'));
        if (step.answer) written.answers += 1;
        if (step.answer) written.answeredAt ??= performance.now();
        await write(sink.frame(step.json));
        break;
      case 'split': {
        const framed = sink.frame(step.json);
        const at = Math.min(Math.max(1, step.at), framed.length - 1);
        await write(framed.subarray(0, at));
        await delay(step.pauseMs);
        if (sink.gone) return;
        written.messages.push(step.json.toString('utf8'));
        if (step.answer) written.answers += 1;
        if (step.answer) written.answeredAt ??= performance.now();
        await write(framed.subarray(at));
        break;
      }
      case 'partial': {
        const framed = sink.frame(step.json);
        await write(framed.subarray(0, Math.max(1, Math.floor(framed.length * step.fraction))));
        break;
      }
      case 'endless': {
        await write(Buffer.concat([sink.opening, step.head]));
        // The filler is not recorded: nothing compares it, and a run holds thousands of records.
        for (let sent = 0; sent < step.capBytes && !sink.gone; sent += FILLER.length) await sink.write(FILLER);
        await delay(step.holdMs);
        if (sink.gone) return;
        await write(sink.closing);
        break;
      }
      case 'pause':
        await delay(step.ms);
        break;
      case 'flush':
        sink.flush();
        break;
      case 'reset':
        sink.reset();
        return;
      case 'kill':
        sink.kill();
        return;
    }
  }
  written.complete = !sink.gone;
}
