/**
 * The legacy HTTP+SSE transport (2024-11-05) towards an `sse:` upstream. A client's GET opens one upstream
 * stream; its `endpoint` event is rewritten to the gateway's own message route, and every `message` event
 * that answers a remembered request goes through the shared rewriter. Everything else passes byte for byte.
 */
import { randomUUID } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../json.js';
import { classifyMessage, type ClassifiedMessage, type JsonRpcId } from '../jsonrpc/classify.js';
import type { Logger } from '../log.js';
import type { PendingRequest, Rewriter } from '../pipeline/rewrite.js';
import type { UpstreamPolicy } from '../policy/types.js';
import { detectRevision, type RevisionSource } from '../protocol/era.js';
import { eventWithJson } from '../offload/splice.js';
import { serializeEvent, type SseEvent } from '../stream/sse.js';

/** One client's legacy connection: its upstream stream and what it waits for. */
export interface LegacyConnection {
  /** The id in the endpoint the gateway announces (`?sessionId=`). */
  readonly id: string;
  /** Aborts the upstream GET (client gone, shutdown). */
  readonly abort: AbortController;
  /** Where the upstream wants this connection's POSTs, once its `endpoint` event arrived. */
  endpoint: URL | undefined;
  /** The InitializeResult's protocolVersion, once seen. */
  protocolVersion: string | undefined;
  readonly pending: Map<JsonRpcId, PendingRequest>;
}

/** All legacy connections of one upstream. */
export class LegacyConnections {
  private readonly byId = new Map<string, LegacyConnection>();

  create(): LegacyConnection {
    const conn: LegacyConnection = { id: randomUUID(), abort: new AbortController(), endpoint: undefined, protocolVersion: undefined, pending: new Map() };
    this.byId.set(conn.id, conn);
    return conn;
  }

  get(id: string): LegacyConnection | undefined {
    return this.byId.get(id);
  }

  delete(conn: LegacyConnection): void {
    this.byId.delete(conn.id);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Abort every upstream stream (their client responses end with them). */
  closeAll(): void {
    for (const conn of this.byId.values()) conn.abort.abort();
    this.byId.clear();
  }
}

/** What the event transformer needs besides the event. */
export interface LegacyStreamContext {
  readonly upstream: string;
  /** The upstream's SSE URL: relative endpoints resolve against it. */
  readonly sseUrl: URL;
  /** The endpoint the client is told to POST to, for this connection. */
  readonly clientEndpoint: string;
  readonly rewriter: Rewriter;
  readonly log: Logger;
}

/** An event that answers a remembered request whose response may be rewritten, parsed. */
interface ToRewrite {
  readonly pending: PendingRequest;
  readonly message: JsonObject;
}

/** The bookkeeping shared by both transforms: raw bytes to forward, or the response to rewrite. */
function prepare(event: SseEvent, conn: LegacyConnection, ctx: LegacyStreamContext): Buffer | ToRewrite {
  if (!event.complete) return event.raw;
  if (event.event === 'endpoint') {
    try {
      conn.endpoint = new URL(event.data.join('\n').trim(), ctx.sseUrl);
    } catch (err) {
      ctx.log.warn({ err, data: event.data }, 'upstream announced an invalid endpoint');
      return event.raw;
    }
    return serializeEvent(event, ctx.clientEndpoint);
  }
  if ((event.event !== undefined && event.event !== 'message') || event.data.length === 0) return event.raw;
  let message: unknown;
  try {
    message = JSON.parse(event.data.join('\n'));
  } catch {
    return event.raw;
  }
  const c = classifyMessage(message);
  if (c.kind !== 'response' || c.id === undefined || !isJsonObject(message)) return event.raw;
  const pending = conn.pending.get(c.id);
  if (!pending) return event.raw;
  conn.pending.delete(c.id);
  const result = message.result;
  if (pending.method === 'initialize' && isJsonObject(result) && typeof result.protocolVersion === 'string') conn.protocolVersion = result.protocolVersion;
  if (!ctx.rewriter.needsRewrite(pending.method)) return event.raw;
  return { pending, message };
}

/**
 * One upstream SSE event → the bytes the client gets. `endpoint` is remembered and rewritten; responses to
 * remembered requests are rewritten when the rewriter changed them; everything else is the original bytes.
 */
export function transformEvent(event: SseEvent, conn: LegacyConnection, ctx: LegacyStreamContext): Buffer {
  const prepared = prepare(event, conn, ctx);
  if (Buffer.isBuffer(prepared)) return prepared;
  const out = ctx.rewriter.rewrite(prepared.pending, prepared.message, ctx.log);
  return out === prepared.message ? event.raw : serializeEvent(event, JSON.stringify(out));
}

/**
 * transformEvent, except that a result large enough for a worker thread (Rewriter.rewriteLarge) comes back
 * as a promise; the stream's later events must wait for it.
 */
export function relayEvent(event: SseEvent, conn: LegacyConnection, ctx: LegacyStreamContext): Buffer | Promise<Buffer> {
  const prepared = prepare(event, conn, ctx);
  if (Buffer.isBuffer(prepared)) return prepared;
  const large = ctx.rewriter.rewriteLarge?.(prepared.pending, prepared.message, ctx.log);
  if (large) return large.then((r) => (r.serialized === undefined ? event.raw : eventWithJson(event, r.serialized)));
  const out = ctx.rewriter.rewrite(prepared.pending, prepared.message, ctx.log);
  return out === prepared.message ? event.raw : serializeEvent(event, JSON.stringify(out));
}

/**
 * Remember the requests of one client POST so their responses (arriving on the GET stream) can be matched.
 * Returns the revisions detected, for metrics.
 */
export function rememberRequests(
  conn: LegacyConnection,
  upstream: string,
  messages: readonly ClassifiedMessage[],
  header: string | undefined,
  policy?: UpstreamPolicy,
): { revision: string; source: RevisionSource }[] {
  const detected: { revision: string; source: RevisionSource }[] = [];
  for (const m of messages) {
    if (m.kind !== 'request' || m.id === undefined || m.method === undefined) continue;
    const found = detectRevision({ meta: m.metaRevision, header, session: conn.protocolVersion });
    detected.push(found);
    conn.pending.set(m.id, {
      upstream,
      method: m.method,
      revision: found.revision,
      ...(m.method === 'tools/call' && m.name !== undefined && { tool: m.name }),
      ...(policy && { policy }),
    });
  }
  return detected;
}
