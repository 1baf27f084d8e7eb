/**
 * What the rewrite pipeline is asked to do: a response to one request whose answer may be rewritten, as a
 * parsed message or as the raw bytes the upstream sent (with the id they were sniffed to carry); and what it
 * offers the sessions (Rewriter, made by ./rewrite.ts createRewriter).
 */
import type { Json, JsonObject } from '../json.js';
import type { Log } from '../log.js';
import type { Demuxed } from './offload/demux.js';
import type { Inspected } from './offload/inspect.js';
import type { Reshaped } from './offload/protocol.js';
import type { ClientProfile } from '../retrofit/profile.js';
import type { RequestTrace } from '../telemetry/spans.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';
import type { LiteralTrail } from '../json-literals.js';

/** What the gateway remembers about a request until its response arrives. */
export interface PendingRequest {
  readonly upstream: string;
  readonly method: string;
  /** tools/call: the tool name; tasks/result: the tool that created the task, when known. */
  readonly tool?: string;
  /** The revision governing this request for the client (see src/protocol/era.ts). */
  readonly revision: string;
  /**
   * The upstream's policy of the config generation the request was sent under, so a request in flight
   * across a reload is answered by the generation it started on. Absent: nothing to rewrite.
   */
  readonly policy?: UpstreamPolicy;
  /**
   * tools/call of an upstream that records (`policy.record`): the request's `params.arguments`, so the
   * recorder can scrub their values from the recorded result. Absent for every other request.
   */
  readonly arguments?: Json;
  /** The client's profile (`clients:`), when one matched and changes something. */
  readonly profile?: ClientProfile;
  /** The request's spans, when tracing is on (src/telemetry/spans.ts). */
  readonly trace?: RequestTrace;
}

/** A response to rewrite: parsed, or raw (UTF-8 JSON of one message, believed to answer `id`). */
export type RewriteInput =
  /**
   * `literals`: the inexact number literals of the text `message` was parsed from (src/json-literals.ts),
   * asked for only when its result is retrofitted on a worker, which writes it from its parsed form.
   */
  | { readonly message: JsonObject; readonly raw?: undefined; readonly literals?: () => LiteralTrail | undefined }
  | { readonly raw: Buffer | string; readonly id: string | number; readonly message?: undefined };

/** What the pipeline gives back for one response. */
export type Rewritten =
  /** Send the response as received. `original`: the parsed response, or a worker's stub of it (id, result.task). */
  | { readonly kind: 'unchanged'; readonly original: JsonObject }
  /** Send `message` instead (rewritten here). */
  | { readonly kind: 'message'; readonly message: JsonObject; readonly original: JsonObject }
  /** Send `bytes` instead: the whole rewritten message as UTF-8 JSON, serialised by a worker. */
  | { readonly kind: 'bytes'; readonly bytes: Buffer; readonly original: JsonObject }
  /**
   * Raw input only: the bytes are not one response with that id and a result (a batch, a notification, not
   * JSON). `parsed` holds what JSON.parse made of them, if it could; the caller handles them as usual.
   */
  | { readonly kind: 'mismatch'; readonly parsed?: unknown };

export interface Rewriter {
  /** True when responses to this method may be rewritten (tools/list, tools/call, tasks/result). */
  needsRewrite(method: string): boolean;
  /** Raw responses longer than this may be handed over unparsed (absent: parse them first, always). */
  readonly rawThreshold?: number;
  /** Rewrite one response (see the module comment); synchronous unless a worker is involved. */
  respond(request: PendingRequest, input: RewriteInput, log: Log): Rewritten | Promise<Rewritten>;
  /**
   * Reshape a large 2026-07-28 answer for a client of a session revision on the large-result worker
   * (src/upstream/modern-link.ts); undefined when no worker can take it (the caller does it on its thread).
   */
  reshape(data: Buffer, clientId: string | number, log: Log): Promise<Reshaped<Buffer>> | undefined;
  /**
   * Read a large message nothing will rewrite on the large-result worker (./offload/inspect.ts:
   * src/session/inbound.ts); undefined when no worker can take it (the caller parses it itself).
   */
  inspect(data: Buffer, log: Log): Promise<Inspected> | undefined;
  /**
   * Sort out a shared stdio child's long line that is not an answer on the large-result worker (./offload/
   * demux.ts: src/upstream/shared-stdio.ts); undefined when no worker can take it (the caller does it).
   */
  demux(data: Buffer, log: Log): Promise<Demuxed<Buffer>> | undefined;
  /**
   * True when an answer to `request` whose result reads as `result` — a worker's stub of it (./offload/
   * inspect.ts) — comes out of respond() unchanged: a tools/call or tasks/result of a tool without a configured
   * schema whose result has no structuredContent, or one the client's revision and profile take as it is (or
   * any answer to a method nothing rewrites). Then passedUnread() keeps respond()'s books without the result
   * (it is recorded from its bytes).
   */
  leavesUnread(request: PendingRequest, result: Json): boolean;
  /**
   * A large answer (bytes) to `request`, a tools/call or tasks/result of a tool without a configured schema,
   * whose own structuredContent must change for the client (leavesUnread said no): projected on the
   * large-result worker, with what tools/list taught of the tool. Undefined when no worker can take it (the
   * caller parses it); a worker that fails leaves it to be decided on the parsed message here.
   */
  projectNative(request: PendingRequest, raw: Buffer, id: string | number, log: Log): Promise<Rewritten> | undefined;
  passedUnread(request: PendingRequest, raw: Buffer, result: Json): void;
  /**
   * Boot the isolation worker ahead of the first call that needs it, when one of `policies` has a tool
   * that does (config load, and each reload that changes tools). Otherwise no worker runs until one does.
   */
  prepare(policies: Iterable<UpstreamPolicy>): void;
  /** Stop the workers (the app's close calls it). */
  close(): Promise<void>;
}
