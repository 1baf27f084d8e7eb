/**
 * What the rewrite pipeline is asked to do: a response to one request whose answer may be rewritten, as a
 * parsed message or as the raw bytes the upstream sent (with the id they were sniffed to carry).
 */
import type { Json, JsonObject } from '../json.js';
import type { ClientProfile } from '../retrofit/profile.js';
import type { RequestTrace } from '../telemetry/spans.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';

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
  | { readonly message: JsonObject; readonly raw?: undefined }
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
