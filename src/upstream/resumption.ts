/**
 * Where a pooled session's answer stream stands, for resuming it (./http-session-link.ts) as the SDK clients
 * resume theirs: a 2025-11-25 server with an event store may end a POST's SSE stream after an event id and
 * before the answer (SEP-1699 polling: a priming event with `retry:`, then the server closes the stream), or
 * the connection may break; the answer is then replayed on a GET carrying `Last-Event-ID`. The link resumes
 * while the stream owes answers and named an id, after the stream's `retry:` delay, within the request's
 * timeoutMs, and gives up after MAX_FRUITLESS resumptions in a row that bring no new event.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';

/** Resumptions in a row that bring no new event id before the link gives up on the stream. */
export const MAX_FRUITLESS = 3;
/** The wait before a resumption when the stream named none (`retry:`): the SDK clients' first delay. */
export const DEFAULT_RETRY_MS = 1_000;

export class StreamPosition {
  /** The last event id the stream named (an empty `id:` clears it: nothing to resume from). */
  lastEventId: string | undefined;
  /** The stream's `retry:`, the wait before resuming it. */
  retryMs = DEFAULT_RETRY_MS;
  /** The ids of the requests the stream still owes an answer. */
  readonly owed: Set<string | number>;

  constructor(ids: Iterable<string | number>) {
    this.owed = new Set(ids);
  }

  /** The stream may be resumed: it owes answers, and named an id to resume from. */
  get resumable(): boolean {
    return this.owed.size > 0 && this.lastEventId !== undefined;
  }

  /** An event's `id:` and `retry:` (answer-reader's `position`). */
  readonly position = (id: string | undefined, retry: number | undefined): void => {
    if (id !== undefined) this.lastEventId = id === '' ? undefined : id;
    if (retry !== undefined) this.retryMs = retry;
  };

  /** A message the stream carried: the request it answers, if any, is owed no more. */
  carried(data: string | Buffer): void {
    if (this.owed.size > 0) this.settle(sniffResponseId(endsOf(data)));
  }

  /** Request `id` was answered (or failed: a message for it dropped). */
  settle(id: string | number | undefined): void {
    if (id !== undefined) this.owed.delete(id);
  }
}

/** Wait `ms`, or less when `signal` aborts: false then. */
export async function waitToResume(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
