/**
 * What a fault client keeps of its session: every HTTP exchange it made (setup ones — initialize,
 * initialized, DELETE, a burst's sessions — and the planned POSTs), every request id it sent on each, and
 * the legacy stream its answers arrived on. The invariants (./invariants.ts) read only this.
 */
import type { Exchange, Message } from './client.js';
import type { PostPlan, SessionPlan } from './plan.js';

/** One HTTP exchange and the JSON-RPC request ids it carried (none for a DELETE or a notification). */
export interface ExchangeRecord {
  readonly label: string;
  readonly ids: readonly (string | number)[];
  readonly exchange: Exchange;
  /** The client left it on purpose (a vanish): no answer is owed. */
  left?: boolean;
  /** The answers come on this stream rather than on the exchange (legacy clients). */
  readonly answersOn?: Exchange;
  /** Legacy: the client stopped waiting for its answers while the stream was still open (a hang). */
  gaveUp?: boolean;
  /** Its answers must equal what the upstream sent. */
  readonly plan?: PostPlan;
}

/** One attempt to open a session (its own, or a burst's): whether the gateway opened it, and what it said. */
export interface Opening {
  readonly label: string;
  readonly ok: boolean;
  /** Status and the start of the body, or the legacy stream's state. */
  readonly detail: string;
  /** The plan delayed this initialize's answer on purpose (slow-initialize): it need not open. */
  readonly faulted: boolean;
}

export interface SessionRecord {
  readonly plan: SessionPlan;
  sessionId?: string;
  readonly exchanges: ExchangeRecord[];
  readonly openings: Opening[];
  /** Things the session could not do (an initialize refused, …): context for a failure report. */
  readonly notes: string[];
  /** A 2026-07-28 client: the server's identity its `server/discover` answer named (`_meta`). */
  serverInfo?: unknown;
}

export function sameId(a: unknown, b: unknown): boolean {
  return a === b && (typeof a === 'string' || typeof a === 'number');
}

/** A message that replies to a request: it has an id and no method. */
export function isReply(m: Message): boolean {
  return m.method === undefined && (typeof m.id === 'string' || typeof m.id === 'number' || m.id === null);
}

/** The replies to `id` among `messages`. */
export function repliesTo(messages: readonly Message[], id: string | number): Message[] {
  return messages.filter((m) => isReply(m) && sameId(m.id, id));
}

/** An HTTP-level JSON-RPC error answering the whole POST (`id: null`, e.g. 413, 404, 502). */
export function wholePostError(ex: Exchange): Message | undefined {
  if (ex.sse || ex.status === undefined || ex.status < 400) return undefined;
  const only = ex.messages.length === 1 ? ex.messages[0] : undefined;
  return only && only.id === null && only.error !== undefined ? only : undefined;
}

/** The standard headers of a Streamable HTTP POST. */
export function postHeaders(session: string | undefined, revision: string | undefined): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(session !== undefined && { 'mcp-session-id': session }),
    ...(revision !== undefined && { 'mcp-protocol-version': revision }),
  };
}

/**
 * The headers of a 2026-07-28 client's POST: the revision, and the body's method and name mirrored
 * (`Mcp-Name` of a tools/call is its tool's name, plain ASCII here).
 */
export function statelessHeaders(message: Message): Record<string, string> {
  const name = (message.params as { name?: unknown } | undefined)?.name;
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': String(message.method),
    ...(message.method === 'tools/call' && typeof name === 'string' && { 'mcp-name': name }),
  };
}

/**
 * The initialize request of a session (id 0); the session's own carries its tag (a burst's extra ones do not)
 * and, in a slow-initialize session, the delay its answer gets.
 */
export function initializeRequest(plan: SessionPlan, tagged: boolean): Message {
  return {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: plan.revision,
      capabilities: {},
      clientInfo: { name: 'fault-client', version: '1.0.0' },
      ...(tagged && { _meta: { 'x-fault': { tag: plan.tag, mode: 'json', ...(plan.initDelayMs !== undefined && { delayMs: plan.initDelayMs }) } } }),
    },
  };
}

export const INITIALIZED = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
