/**
 * `subscriptions/listen` of 2026-07-28 clients of one upstream: each listener is a long-lived SSE answer that
 * starts with `notifications/subscriptions/acknowledged` (the filter the gateway honours) and then carries
 * the notifications it asked for — the upstream's list changes (from any pooled session), the gateway's own
 * tools/list_changed after a reload, updates of the resources it subscribed to (./resource-subscriptions.ts)
 * — each with the listener's id in `_meta`, and a keep-alive comment every
 * KEEP_ALIVE_MS. Writes that find the client behind are dropped past MAX_BACKLOG bytes (a listener is told
 * of changes, it does not need every copy). On shutdown each gets its graceful closing result.
 */
import type { ServerResponse } from 'node:http';
import { lazyTrail, stringifyKept } from '../../json-literals.js';
import { isJsonObject, type JsonObject } from '../../json.js';
import type { JsonRpcId } from '../../jsonrpc/classify.js';
import { META_SUBSCRIPTION_ID } from '../../protocol/modern.js';
import { KEEP_ALIVE, messageEvent } from '../../stream/sse-encode.js';
import { SSE_HEADERS } from '../write.js';
import { KEEP_ALIVE_MS } from './registry.js';

/** Bytes a listener's response may have waiting for its client before notifications to it are dropped. */
export const MAX_BACKLOG = 1024 * 1024;
/** Listeners of one upstream at once; beyond it a listen gets 503 (each holds a connection and a keep-alive). */
export const MAX_LISTENERS = 1024;

/** Which filter key lets a notification through. */
const FILTER_OF: Readonly<Record<string, string>> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

interface Listener {
  readonly res: ServerResponse;
  readonly id: JsonRpcId;
  readonly filter: JsonObject;
  /** Its resourceSubscriptions, as a set. */
  readonly uris: ReadonlySet<string>;
  /** The key (credentials, capabilities) its resource subscriptions are held under: updates of that key only. */
  readonly scope: string | undefined;
}

/**
 * What the upstream can tell listeners of, from its capabilities (tools changes: the gateway tells of reloads
 * too); resource updates where it supports subscriptions, at most `maxUris` URIs.
 */
export function honouredFilter(asked: JsonObject, capabilities: JsonObject | undefined, maxUris: number): JsonObject {
  const caps = capabilities ?? {};
  const has = (k: string, flag: string): boolean => isJsonObject(caps[k]) && (caps[k] as JsonObject)[flag] === true;
  const out: JsonObject = {};
  if (asked.toolsListChanged === true) out.toolsListChanged = true;
  if (asked.promptsListChanged === true && has('prompts', 'listChanged')) out.promptsListChanged = true;
  if (asked.resourcesListChanged === true && has('resources', 'listChanged')) out.resourcesListChanged = true;
  const uris = Array.isArray(asked.resourceSubscriptions) ? [...new Set(asked.resourceSubscriptions.filter((u): u is string => typeof u === 'string'))] : [];
  if (uris.length > 0 && has('resources', 'subscribe')) out.resourceSubscriptions = uris.slice(0, maxUris);
  return out;
}

/** The URIs a filter subscribes to. */
export function urisOf(filter: JsonObject): string[] {
  return Array.isArray(filter.resourceSubscriptions) ? filter.resourceSubscriptions.filter((u): u is string => typeof u === 'string') : [];
}

export class Listeners {
  readonly #listeners = new Set<Listener>();
  readonly #keepAliveMs: number;
  #ticker: NodeJS.Timeout | undefined;

  constructor(keepAliveMs = KEEP_ALIVE_MS) {
    this.#keepAliveMs = keepAliveMs;
  }

  get size(): number {
    return this.#listeners.size;
  }

  /** Room for one more listener. */
  get full(): boolean {
    return this.#listeners.size >= MAX_LISTENERS;
  }

  /**
   * Open a listener's stream on `res` for request `id`, honouring `filter`; `onClose` once it ends. `scope` is
   * the key its resource subscriptions are held under (./resource-subscriptions.ts).
   */
  listen(res: ServerResponse, id: JsonRpcId, filter: JsonObject, onClose?: () => void, scope?: string): void {
    const listener: Listener = { res, id, filter, uris: new Set(urisOf(filter)), scope };
    res.writeHead(200, SSE_HEADERS);
    const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: filter, _meta: { [META_SUBSCRIPTION_ID]: id } } };
    res.write(messageEvent(JSON.stringify(ack)));
    this.#listeners.add(listener);
    res.once('close', () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stopTicker();
      onClose?.();
    });
    this.#ticker ??= setInterval(() => this.#tick(), this.#keepAliveMs).unref();
  }

  /**
   * A notification for every listener whose filter asks for it; returns how many got it. A resource update goes
   * only to listeners of its `scope`, the key of the session that holds their subscriptions: one user's
   * subscriptions never tell another user's listener anything (an update of no scope reaches nobody).
   */
  publish(method: string, json: string, scope?: string): number {
    const key = FILTER_OF[method];
    const updated = method === 'notifications/resources/updated';
    if ((key === undefined && !updated) || this.#listeners.size === 0) return 0;
    let message: JsonObject;
    try {
      const parsed: unknown = JSON.parse(json);
      if (!isJsonObject(parsed)) return 0;
      message = parsed;
    } catch {
      return 0;
    }
    const uri = isJsonObject(message.params) && typeof message.params.uri === 'string' ? message.params.uri : undefined;
    // Written again for each listener (its subscription id added), the upstream's number literals kept.
    const trail = lazyTrail(json);
    let sent = 0;
    for (const l of this.#listeners) {
      const wanted = updated ? uri !== undefined && scope !== undefined && l.scope === scope && l.uris.has(uri) : l.filter[key!] === true;
      if (!wanted || l.res.writableLength > MAX_BACKLOG) continue;
      const params = isJsonObject(message.params) ? message.params : {};
      const meta = isJsonObject(params._meta) ? params._meta : {};
      const out = { ...message, params: { ...params, _meta: { ...meta, [META_SUBSCRIPTION_ID]: l.id } } };
      l.res.write(messageEvent(stringifyKept(out, trail())));
      sent += 1;
    }
    return sent;
  }

  /** End every listener with its graceful closing result (shutdown). */
  closeAll(): void {
    for (const l of this.#listeners) {
      const result = { jsonrpc: '2.0', id: l.id, result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION_ID]: l.id } } };
      if (!l.res.destroyed) l.res.end(messageEvent(JSON.stringify(result)));
    }
    this.#listeners.clear();
    this.#stopTicker();
  }

  #tick(): void {
    for (const l of this.#listeners) if (l.res.writableLength <= MAX_BACKLOG) l.res.write(KEEP_ALIVE);
  }

  #stopTicker(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }
}
