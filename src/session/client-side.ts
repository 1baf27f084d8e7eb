/**
 * What an owned session (./owned.ts) needs of its client side — the streams its client reads (src/http/front/
 * for Streamable HTTP clients, src/http/legacy/edge.ts for legacy ones) — and what it hands them.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { JsonRpcId } from '../jsonrpc/classify.js';

/** One message for the client. */
export interface Delivery {
  /** Its JSON text (or UTF-8 bytes, from a worker). */
  readonly json: string | Buffer;
  /** The SSE event it arrived in, when it came framed and is unchanged (legacy clients get it byte for byte). */
  readonly raw?: Buffer;
  /** It is the answer to the request the stream waits for (the stream may end once all are answered). */
  readonly answers?: JsonRpcId;
  /** It is an error answer: its code, and `data.code` when it is one of the gateway's own (request logs). */
  readonly error?: { readonly code: number; readonly data?: string };
}

/** A delivery's JSON text. */
export function deliveryText(delivery: Delivery): string {
  return typeof delivery.json === 'string' ? delivery.json : delivery.json.toString('utf8');
}

/** A delivery's message, parsed; an empty object when it is not one (a client side that must look into it). */
export function deliveryMessage(text: string): JsonObject {
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The error part of an answer, for Delivery.error. */
export function errorOf(message: JsonObject): Delivery['error'] {
  const error = message.error;
  if (!isJsonObject(error) || typeof error.code !== 'number') return undefined;
  const data = isJsonObject(error.data) && typeof error.data.code === 'string' ? error.data.code : undefined;
  return { code: error.code, ...(data !== undefined && { data }) };
}

/**
 * The client side of an owned session: its streams. `S` identifies one (the stream a request came on).
 * Backpressure is a state the session asks for, never an order of events: after each delivery, and whenever
 * the client side calls OwnedSession.pressureChanged() (a stream drained or closed), the session reads
 * backedUp() and holds the link back exactly while it is true.
 */
export interface ClientSide<S> {
  /** Put a message on `stream`, or on the session's own stream when undefined. */
  deliver(stream: S | undefined, delivery: Delivery): void;
  /** True while one of its streams cannot take more now (its response waits for 'drain'). */
  backedUp(): boolean;
  /** No answer will come for request `id` on `stream` (the client cancelled it). */
  abandon(stream: S | undefined, id: JsonRpcId): void;
  /** Something that is not a message, for a legacy client's stream only (upstream SSE comments). */
  passthrough?(raw: Buffer): void;
}
