/**
 * Telling connected clients that tool definitions changed after a reload: `notifications/tools/list_changed`
 * on the server streams they hold open. For proxied Streamable HTTP upstreams those are the GET streams the
 * gateway relays (the upstream knows nothing of the change, so the gateway injects the event); stdio
 * sessions get it through their own transport (src/upstream/stdio-pool.ts).
 *
 * The event is written between whole events only — the relay writes each event in one call — and carries no
 * `id:`, so the client's Last-Event-ID (the upstream's) is left as it was.
 */
import type { ServerResponse } from 'node:http';
import type { JsonObject } from '../config/types.js';

/** The notification every client gets when its upstream's tools changed. */
export const TOOLS_LIST_CHANGED: JsonObject = Object.freeze({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

/** One SSE `message` event holding a JSON-RPC message. */
export function sseMessage(message: JsonObject): Buffer {
  return Buffer.from(`event: message\ndata: ${JSON.stringify(message)}\n\n`, 'utf8');
}

/** The server-sent-event streams (GET) currently relayed for one upstream. */
export class ServerStreams {
  readonly #open = new Set<ServerResponse>();

  /** Track a stream whose SSE headers were sent; call the returned function when it ends. */
  track(res: ServerResponse): () => void {
    this.#open.add(res);
    return () => void this.#open.delete(res);
  }

  get size(): number {
    return this.#open.size;
  }

  /** Write `message` on every open stream; returns how many got it. */
  broadcast(message: JsonObject): number {
    const event = sseMessage(message);
    let sent = 0;
    for (const res of this.#open) {
      if (res.destroyed || res.writableEnded) continue;
      res.write(event);
      sent += 1;
    }
    return sent;
  }
}
