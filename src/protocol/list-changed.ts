/**
 * The notification that tells a client its tool definitions changed (`notifications/tools/list_changed`), as
 * the gateway sends it itself after a reload: on a session's server stream, or — for 2026-07-28, which has no
 * GET stream — on a `subscriptions/listen` stream that opted in, stamped with the listen request's id in
 * `_meta["io.modelcontextprotocol/subscriptionId"]` as that revision requires of every notification on it.
 */
import { isJsonObject, type JsonObject } from '../json.js';

/** The notification every client gets when its upstream's tools changed. */
export const TOOLS_LIST_CHANGED: JsonObject = Object.freeze({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

/** The `_meta` key that ties a notification to the `subscriptions/listen` request whose stream carries it. */
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/** The list_changed notification for a 2026-07-28 listen stream opened by request `id`. */
export function subscriptionListChanged(id: string | number): JsonObject {
  return { ...TOOLS_LIST_CHANGED, params: { _meta: { [SUBSCRIPTION_ID_META_KEY]: id } } };
}

/** The id of a 2026-07-28 `subscriptions/listen` request that opted in to tool list changes, else undefined. */
export function listensForToolChanges(m: { readonly method?: string; readonly id?: unknown; readonly message: unknown } | undefined): string | number | undefined {
  if (m?.method !== 'subscriptions/listen' || !isJsonObject(m.message) || !isJsonObject(m.message.params)) return undefined;
  const filter = m.message.params.notifications;
  const id = m.id;
  return isJsonObject(filter) && filter.toolsListChanged === true && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

/** Any `subscriptions/listen` among `messages` (a loop: this runs on every proxied POST). */
export function holdsListen(messages: readonly { readonly method?: string | undefined }[]): boolean {
  for (const m of messages) if (m.method === 'subscriptions/listen') return true;
  return false;
}
