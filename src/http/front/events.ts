/**
 * The events one gateway-owned session sent its client on resumable streams, kept so a client whose stream
 * dropped can resume with `Last-Event-ID` and be sent what it missed — rewritten answers included, exactly
 * as first sent. A stream whose response ended cleanly is forgotten at once; the others are bounded by count
 * and bytes per session, the oldest streams going first. Event ids are
 * `<stream>-<seq>` (the standalone GET stream is stream 0), so an id names its stream without a lookup.
 */

import { eventLength, type EventBytes } from '../../stream/sse-encode.js';

/** One stored event: its sequence number within its stream, its exact bytes (as written: pieces stay pieces). */
interface Stored {
  readonly seq: number;
  readonly bytes: EventBytes;
  readonly length: number;
}

interface StreamLog {
  readonly events: Stored[];
  next: number;
  /** No more events will come (all its requests were answered): forgotten once its events are evicted. */
  finished: boolean;
}

/** Where a Last-Event-ID points. */
export interface EventCursor {
  readonly stream: number;
  readonly seq: number;
}

/** Parse a Last-Event-ID of ours; undefined for anything else. */
export function parseEventId(id: string): EventCursor | undefined {
  const m = /^(\d{1,15})-(\d{1,15})$/.exec(id);
  return m ? { stream: Number(m[1]), seq: Number(m[2]) } : undefined;
}

export interface EventStoreOptions {
  /** Most events kept per session (default 512). */
  readonly maxEvents?: number;
  /** Most bytes kept per session (default 8 MiB). */
  readonly maxBytes?: number;
}

export class EventStore {
  readonly #streams = new Map<number, StreamLog>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #events = 0;
  #bytes = 0;

  constructor(options: EventStoreOptions = {}) {
    this.#maxEvents = options.maxEvents ?? 512;
    this.#maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  }

  /** The id the next event of `stream` gets (reserve it, then store the event under it). */
  nextId(stream: number): { id: string; seq: number } {
    const log = this.#log(stream);
    const seq = log.next++;
    return { id: `${stream}-${seq}`, seq };
  }

  /** Keep an event's bytes; the oldest streams' events are evicted past the bounds. */
  store(stream: number, seq: number, bytes: EventBytes): void {
    const length = eventLength(bytes);
    this.#log(stream).events.push({ seq, bytes, length });
    this.#events += 1;
    this.#bytes += length;
    while ((this.#events > this.#maxEvents || this.#bytes > this.#maxBytes) && this.#evictOne(stream)) {
      // evict until within bounds
    }
  }

  /** No more events will come on `stream`. */
  finish(stream: number): void {
    const log = this.#streams.get(stream);
    if (!log) return;
    log.finished = true;
    if (log.events.length === 0) this.#streams.delete(stream);
  }

  /**
   * Drop a finished stream's events: its client was sent all of them on a response that ended cleanly, so
   * nothing is left to resume. Only streams that finished while their client was away keep theirs.
   */
  forget(stream: number): void {
    const log = this.#streams.get(stream);
    if (!log?.finished) return;
    for (const event of log.events) this.#bytes -= event.length;
    this.#events -= log.events.length;
    this.#streams.delete(stream);
  }

  /** True when the store knows this stream (it may have no events left to replay). */
  knows(stream: number): boolean {
    return this.#streams.has(stream);
  }

  /** The events of `cursor.stream` after `cursor.seq`, in order. */
  after(cursor: EventCursor): EventBytes[] {
    const log = this.#streams.get(cursor.stream);
    if (!log) return [];
    return log.events.filter((e) => e.seq > cursor.seq).map((e) => e.bytes);
  }

  #log(stream: number): StreamLog {
    let log = this.#streams.get(stream);
    if (!log) {
      log = { events: [], next: 0, finished: false };
      this.#streams.set(stream, log);
    }
    return log;
  }

  /**
   * Drop one event: first from finished streams (their clients got everything unless they dropped), oldest
   * first; then from the other live streams; last from `writing` itself — never its newest event, the one
   * just stored. False when nothing can go.
   */
  #evictOne(writing: number): boolean {
    for (const pass of ['finished', 'live', 'writing'] as const) {
      for (const [stream, log] of this.#streams) {
        const eligible = pass === 'finished' ? log.finished : pass === 'live' ? !log.finished && stream !== writing : stream === writing;
        if (!eligible || log.events.length <= (pass === 'writing' ? 1 : 0)) continue;
        const event = log.events.shift()!;
        this.#events -= 1;
        this.#bytes -= event.length;
        if (log.events.length === 0 && log.finished) this.#streams.delete(stream);
        return true;
      }
    }
    return false;
  }
}
