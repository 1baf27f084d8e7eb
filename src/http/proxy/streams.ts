/**
 * Telling connected clients that tool definitions changed after a reload: `notifications/tools/list_changed`
 * on the server streams they hold open. For proxied Streamable HTTP upstreams those are the GET streams the
 * gateway relays (the upstream knows nothing of the change, so the gateway injects the event); stdio
 * sessions get it through their own transport (src/upstream/stdio-pool.ts).
 *
 * 2026-07-28 clients have no GET stream: they open `subscriptions/listen` streams, and only those that opted in
 * to `toolsListChanged` get the notification, stamped with the listen request's id in
 * `_meta["io.modelcontextprotocol/subscriptionId"]` as that revision requires of every notification on it.
 *
 * The event is written between whole events only — the relay writes each event in one call — and carries no
 * `id:`, so the client's Last-Event-ID (the upstream's) is left as it was.
 */
import type { ServerResponse } from 'node:http';
import type { JsonObject } from '../../json.js';

/** The notification every client gets when its upstream's tools changed. */
export const TOOLS_LIST_CHANGED: JsonObject = Object.freeze({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

/** One SSE `message` event holding a JSON-RPC message. */
export function sseMessage(message: JsonObject): Buffer {
  return Buffer.from(`event: message\ndata: ${JSON.stringify(message)}\n\n`, 'utf8');
}

/** The `_meta` key that ties a notification to the `subscriptions/listen` request whose stream carries it. */
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/** The list_changed notification for a 2026-07-28 listen stream opened by request `id`. */
export function subscriptionListChanged(id: string | number): JsonObject {
  return { ...TOOLS_LIST_CHANGED, params: { _meta: { [SUBSCRIPTION_ID_META_KEY]: id } } };
}

/** The server-sent-event streams (GET streams, and listen streams that asked for list changes) relayed for one upstream. */
export class ServerStreams {
  /** Each stream with the event it gets instead of the broadcast one (listen streams), if any. */
  readonly #open = new Map<ServerResponse, Buffer | undefined>();

  /** Track a stream whose SSE headers were sent; call the returned function when it ends. */
  track(res: ServerResponse, own?: JsonObject): () => void {
    this.#open.set(res, own && sseMessage(own));
    return () => void this.#open.delete(res);
  }

  get size(): number {
    return this.#open.size;
  }

  /** Write `message` (or a stream's own version of it) on every open stream; returns how many got it. */
  broadcast(message: JsonObject): number {
    const event = sseMessage(message);
    let sent = 0;
    for (const [res, own] of this.#open) {
      if (res.destroyed || res.writableEnded) continue;
      res.write(own ?? event);
      sent += 1;
    }
    return sent;
  }
}
