/**
 * Many client sessions on one connection (share mode: one stdio child serves every session of an upstream;
 * src/upstream/shared-ids.ts keeps its tables). Request ids, `params._meta.progressToken` and the `requestId`
 * of notifications/cancelled go to the child as `<session#>~<JSON of the original>`: unique across sessions,
 * `1` and `"1"` kept apart, the original restored exactly. Pure functions of one message, so that a long line
 * can be sorted out on a worker (src/pipeline/offload/demux.ts) as on the event loop.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';

/** A request id or progress token as its sender wrote it. */
export type Key = string | number;

export function isKey(value: unknown): value is Key {
  return typeof value === 'string' || typeof value === 'number';
}

/** Session `session`'s id or token as the child sees it. */
export function toWire(session: number, value: Key): string {
  return `${session}~${JSON.stringify(value)}`;
}

/** The session and original value of a wire id or token; undefined when it is not one the gateway made. */
export function fromWire(wire: unknown): { readonly session: number; readonly value: Key } | undefined {
  if (typeof wire !== 'string') return undefined;
  const at = wire.indexOf('~');
  const prefix = wire.slice(0, at);
  if (at <= 0 || !/^[1-9]\d*$/.test(prefix)) return undefined;
  try {
    const value: unknown = JSON.parse(wire.slice(at + 1));
    return isKey(value) ? { session: Number(prefix), value } : undefined;
  } catch {
    return undefined;
  }
}

const paramsOf = (m: JsonObject): JsonObject | undefined => (isJsonObject(m.params) ? m.params : undefined);

export const paramOf = (m: JsonObject, field: string): Key | undefined => {
  const value = paramsOf(m)?.[field];
  return isKey(value) ? value : undefined;
};

export const withParam = (m: JsonObject, field: string, value: Key): JsonObject => ({ ...m, params: { ...paramsOf(m), [field]: value } });

export const metaTokenOf = (m: JsonObject): Key | undefined => {
  const meta = paramsOf(m)?._meta;
  return isJsonObject(meta) && isKey(meta.progressToken) ? meta.progressToken : undefined;
};

export const withMetaToken = (m: JsonObject, token: Key): JsonObject => {
  const params = paramsOf(m) ?? {};
  return { ...m, params: { ...params, _meta: { ...(isJsonObject(params._meta) ? params._meta : {}), progressToken: token } } };
};

/** What a message from the child is routed by (plain data: it crosses from a worker). */
export interface RoutingFacts {
  /** A JSON object: anything else is no JSON-RPC message. */
  readonly object: boolean;
  /** Its method, when a string (a request or notification). */
  readonly method?: string;
  /** It has an `id` member; `id` is its value when that is JSON. */
  readonly hasId: boolean;
  readonly id?: Json;
  /** `params.progressToken`, `params.requestId`, `params._meta.progressToken`, each when an id or token. */
  readonly progressToken?: Key;
  readonly requestId?: Key;
  readonly metaToken?: Key;
}

export function routingFacts(m: unknown): RoutingFacts {
  if (!isJsonObject(m)) return { object: false, hasId: false };
  const method = typeof m.method === 'string' ? m.method : undefined;
  const progressToken = paramOf(m, 'progressToken');
  const requestId = paramOf(m, 'requestId');
  const metaToken = metaTokenOf(m);
  return {
    object: true,
    hasId: 'id' in m,
    ...(m.id !== undefined && { id: isJsonObject(m.id) || Array.isArray(m.id) ? null : m.id }),
    ...(method !== undefined && { method }),
    ...(progressToken !== undefined && { progressToken }),
    ...(requestId !== undefined && { requestId }),
    ...(metaToken !== undefined && { metaToken }),
  };
}

/**
 * The message as its session must get it, with the wire id or token the gateway made restored: an answer's id;
 * a progress notification's token; otherwise `params._meta.progressToken`. Undefined when it holds none.
 */
export function restoreWire(m: JsonObject): JsonObject | undefined {
  if (typeof m.method !== 'string') {
    const origin = fromWire(m.id);
    return origin && { ...m, id: origin.value };
  }
  if (m.method === 'notifications/progress' && !('id' in m)) {
    const origin = fromWire(paramOf(m, 'progressToken'));
    return origin && withParam(m, 'progressToken', origin.value);
  }
  const origin = fromWire(metaTokenOf(m));
  return origin && withMetaToken(m, origin.value);
}
