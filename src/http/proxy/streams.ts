/**
 * Telling connected clients that tool definitions changed after a reload: `notifications/tools/list_changed`
 * on the server streams they hold open. For proxied Streamable HTTP upstreams those are the GET streams the
 * gateway relays (the upstream knows nothing of the change, so the gateway injects the event); gateway-held
 * sessions get it through their own streams (src/http/front/).
 *
 * 2026-07-28 clients have no GET stream: they open `subscriptions/listen` streams, and only those that opted in
 * to `toolsListChanged` get the notification (src/protocol/list-changed.ts).
 *
 * The event goes between whole events only: while the relay is inside an event it forwards as it arrives, the
 * gateway's event waits for that event's end (./relay.ts takes it then). It carries no `id:`, so the client's
 * Last-Event-ID (the upstream's) is left as it was.
 */
import type { ServerResponse } from 'node:http';
import type { JsonObject } from '../../json.js';
import { messageEvent } from '../../stream/sse-encode.js';

/** One relayed server stream, as the gateway's own events see it. */
export class ServerStream {
  readonly res: ServerResponse;
  /** The event this stream gets instead of the broadcast one (listen streams), if any. */
  readonly own: Buffer | undefined;
  /** The relay forwarded part of an event: the gateway's own must wait for its end. */
  mid = false;
  /** At most one event waits: the notification says "look again", and once is as good as twice. */
  #queued: Buffer | undefined;

  constructor(res: ServerResponse, own: Buffer | undefined) {
    this.res = res;
    this.own = own;
  }

  /** Put the gateway's event on the stream now, or when the event under way ends. */
  send(event: Buffer): void {
    if (this.mid) this.#queued = event;
    else this.res.write(event);
  }

  /** The event waiting for the end of the one under way, taken (the relay writes it). */
  takeQueued(): Buffer | undefined {
    const queued = this.#queued;
    this.#queued = undefined;
    return queued;
  }
}

/** The server-sent-event streams (GET streams, and listen streams that asked for list changes) relayed for one upstream. */
export class ServerStreams {
  readonly #open = new Set<ServerStream>();

  /** Track a stream whose SSE headers were sent; `untrack` it when it ends. */
  track(res: ServerResponse, own?: JsonObject): ServerStream {
    const stream = new ServerStream(res, own && messageEvent(JSON.stringify(own)));
    this.#open.add(stream);
    return stream;
  }

  untrack(stream: ServerStream): void {
    this.#open.delete(stream);
  }

  get size(): number {
    return this.#open.size;
  }

  /** Put `message` (or a stream's own version of it) on every open stream; returns how many got it. */
  broadcast(message: JsonObject): number {
    const event = messageEvent(JSON.stringify(message));
    let sent = 0;
    for (const stream of this.#open) {
      if (stream.res.destroyed || stream.res.writableEnded) continue;
      stream.send(stream.own ?? event);
      sent += 1;
    }
    return sent;
  }
}
