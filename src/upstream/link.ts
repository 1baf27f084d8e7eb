/**
 * One upstream link: how a gateway-owned session talks to its upstream, whatever carries the messages — a
 * stdio child (./stdio-link.ts) or a legacy HTTP+SSE connection (./sse-link.ts). Shaped like the SDK's
 * Transport (send; onmessage; onclose), with the raw text of every message both ways so nothing is
 * re-serialised that need not be, and with backpressure: the session pauses the link while its client
 * cannot keep up, and the link stops reading from the upstream meanwhile.
 *
 * Proxied Streamable HTTP upstreams are not links: the gateway does not own their sessions, and their
 * answers keep their HTTP status, headers and SSE framing; src/http/proxy/forward.ts relays them.
 */
import type { RetrofitError } from '../errors.js';

/** One message from the upstream. */
export interface LinkFrame {
  /**
   * The message's JSON text exactly as the upstream sent it (a stdio line, an SSE event's data). A stdio line or
   * a legacy SSE event past OFFLOAD_BYTES comes as its UTF-8 bytes instead, in shared memory (src/upstream/
   * ndjson.ts, src/stream/sse.ts): it goes to a worker without being decoded or copied on the event loop. Text was checked for nesting depth by the link
   * (a message nested deeper than MAX_DEPTH is dropped, `depth`); bytes were not: whoever takes the frame
   * checks them (nestedTooDeeplyInSlices) before anything else, in order with the frames around it.
   */
  readonly data: string | Buffer;
  /** The bytes it arrived in when it came framed (an SSE event, `id:` and all): forwarded as is when unchanged. */
  readonly raw?: Buffer;
  /**
   * The client's request this message came with, when the link knows it (a 2026-07-28 upstream's notification
   * on a call's answer stream, a request made of its input requests): it belongs on that request's stream.
   */
  readonly related?: string | number;
}

/** A message the link dropped instead of passing it on, its id read from its ends (src/jsonrpc/sniff.ts). */
export interface LinkDropped {
  /**
   * `size`: over limits.maxResultBytes (never held whole); `depth`: nested deeper than MAX_DEPTH
   * (src/jsonrpc/strict.ts), refused before anything recurses over it; `failed`: handling it threw (logged);
   * `reset`: the answer's stream broke before it came (HTTP links: `id` is the request's); `unanswered`: the
   * JSON body that was the request's answer is over and did not answer it (not JSON-RPC, or another id).
   */
  readonly reason: 'size' | 'depth' | 'failed' | 'reset' | 'unanswered';
  readonly bytes: number;
  /** The JSON-RPC id of the response it was, when its ends show one. */
  readonly id?: string | number;
}

/** Why a link ended. */
export interface LinkClosed {
  /**
   * `requested`: the gateway closed it; `exited`: a child ended; `spawn`: a child never started;
   * `unreachable`: the upstream refused or dropped the connection; `protocol`: it sent something not MCP.
   */
  readonly kind: 'requested' | 'exited' | 'spawn' | 'unreachable' | 'protocol';
  /** Short cause for logs and JSON-RPC errors: `code 1`, `spawn ENOENT`, `stream ended`. */
  readonly reason: string;
  /** The last lines the upstream wrote on stderr (stdio), redacted, when there are any. */
  readonly stderr?: string;
  readonly error?: Error;
}

/** The upstream's own HTTP answer to a send (legacy SSE POSTs): passed to a legacy client as it is. */
export interface LinkHttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
}

/** What became of one send. */
export type SendOutcome =
  | { readonly ok: true; readonly answer?: LinkHttpAnswer }
  /**
   * Not delivered: `error` for the client's JSON-RPC error; `answer` when the upstream itself refused it;
   * `gone` when the upstream no longer knew the session it was sent on (404): the message never reached it as
   * a request, and may go again on a new session.
   */
  | { readonly ok: false; readonly error: RetrofitError; readonly answer?: LinkHttpAnswer; readonly gone?: true };

/** Per-send details a link may use (the client's HTTP headers for an HTTP-carried link). */
export interface SendOptions {
  readonly headers?: Record<string, string | string[] | undefined>;
  /**
   * The ids of the requests the message carries, when the sender knows them (none for a notification or a
   * response): a link that reports what a broken or finished answer left unanswered need not read the JSON back.
   */
  readonly ids?: readonly (string | number)[];
}

export interface UpstreamLink {
  /** Send one message (its JSON text, one line of it). */
  send(json: string, options?: SendOptions): SendOutcome | Promise<SendOutcome>;
  /**
   * Every message from the upstream, in its order. Nothing a handler throws escapes the link's data handlers:
   * it is logged and the message reported as dropped (`failed`).
   */
  onframe: (frame: LinkFrame) => void;
  /** A message dropped (see LinkDropped): whoever waits for it is owed an answer. */
  ondropped: (dropped: LinkDropped) => void;
  /** Something the upstream sent that is not a message but belongs on a legacy client's stream (SSE comments). */
  onpassthrough?: (raw: Buffer) => void;
  /** Exactly once, when the link is gone for good. */
  onclose: (closed: LinkClosed) => void;
  /** Stop reading from the upstream until resume() (the client side is backed up). */
  pause(): void;
  resume(): void;
  /**
   * The session gave up waiting for its request `id` (past its deadline, or evicted). It cancels the request
   * at the upstream itself (notifications/cancelled) — never an initialize, which the spec forbids cancelling:
   * what a lost initialize means is the link's to decide (share mode restarts a child that never answered its
   * first). `error` is what the session answered its client with.
   */
  abandoned?(id: string | number, method: string, error: RetrofitError): void;
  /** End the link (a child is stopped, its process group killed after a grace); resolves when it is gone. */
  close(): Promise<void>;
  /** False once the link closed. */
  readonly alive: boolean;
  /** The child's pid (stdio), while it runs. */
  readonly pid?: number | undefined;
}
