/**
 * The spans of one JSON-RPC request through the gateway, per the MCP semantic conventions
 * (open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md): a SERVER span from the moment the
 * gateway has the request until its HTTP exchange ends, named `{mcp.method.name} {target}`, continuing the
 * client's trace (from `params._meta` `traceparent`/`tracestate`, else the HTTP `traceparent` header); a
 * CLIENT child span for the exchange with the upstream, whose context is what the upstream receives (the
 * `traceparent` header for HTTP upstreams, `params._meta` for every kind); the retrofit's outcome as
 * attributes of the SERVER span. Only made when tracing is on (src/telemetry/setup.ts).
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Histogram, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { JsonObject } from '../json.js';
import * as N from './names.js';
import { capturedText } from './content.js';
import { isJsonObject } from '../json.js';
import { methodLabel, revisionLabel } from '../protocol/methods.js';
import { keepsState } from '../tool-name.js';

const W3C = new W3CTraceContextPropagator();

/** Reads `traceparent`/`tracestate` from a plain object (a `_meta`) or Node's lower-cased header map. */
const getter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0] as string;
    return undefined;
  },
};

/** Where the request is going: the server behind the gateway. */
export interface UpstreamTarget {
  readonly name: string;
  /** `pipe` for stdio children, `tcp` for HTTP. */
  readonly transport: 'pipe' | 'tcp';
  readonly address?: string;
  readonly port?: number;
}

/** What is known of a request when the gateway takes it. */
export interface RequestFacts {
  readonly method: string;
  readonly id: string | number;
  readonly tool?: string;
  /** prompts/get: the prompt's name (the span's target). */
  readonly prompt?: string;
  /** tools/call: its arguments (recorded only with `capture`). */
  readonly arguments?: unknown;
  readonly revision?: string;
  readonly session?: string;
  /** The request's `params._meta`, for the client's trace context. */
  readonly meta?: JsonObject;
  /** The HTTP request's headers, for `traceparent` when `_meta` carries none. */
  readonly headers?: Readonly<Record<string, unknown>>;
  readonly upstream: UpstreamTarget;
  /**
   * Opted in (`telemetry.captureContent`): record the call's arguments and its result's text, each through
   * this redaction (the config's secrets; in the result, the arguments' values, as recordings hide them).
   */
  readonly capture?: { readonly redactArguments: (json: string) => string; readonly redactResult: (text: string) => string };
}

/** Longest captured content attribute, in characters. */
export const CONTENT_MAX = 4096;

const bounded = (text: string): string => (text.length > CONTENT_MAX ? `${text.slice(0, CONTENT_MAX)}…` : text);

/** Longest method or tool/prompt name in a span's name (the spec's length for a tool name). */
export const NAME_MAX = 128;

const short = (text: string): string => (text.length > NAME_MAX ? `${text.slice(0, NAME_MAX)}…` : text);

/**
 * A span's name, `method target`: both are the client's to choose, and span names are not attributes (the
 * provider's attribute limits do not reach them), so each is cut at NAME_MAX.
 */
function spanName(method: string, target: string | undefined): string {
  return target === undefined ? short(method) : `${short(method)} ${short(target)}`;
}

/** The retrofit of a tools/call answer, as span attributes. */
export interface RetrofitFacts {
  readonly outcome: string;
  readonly format: string;
  readonly mode: string;
  readonly failures: number;
  readonly profile?: string;
}

/**
 * The client's context: `_meta` first (it travels with the message), else the HTTP header. A `_meta`
 * traceparent the propagator rejects (not W3C's form) names no context, so the header's is taken then.
 */
function parentOf(facts: RequestFacts): Context {
  if (facts.meta && typeof facts.meta.traceparent === 'string') {
    const context = W3C.extract(ROOT_CONTEXT, facts.meta, getter);
    if (trace.getSpanContext(context) !== undefined) return context;
  }
  if (facts.headers) return W3C.extract(ROOT_CONTEXT, facts.headers, getter);
  return ROOT_CONTEXT;
}

/** The spans of one request. */
export class RequestTrace {
  readonly #server: Span;
  #client: Span | undefined;
  readonly #facts: RequestFacts;
  readonly #tracer: Tracer;
  #ended = false;
  readonly #started = performance.now();
  #clientStarted: number | undefined;
  readonly #instruments: { readonly serverOperation: Histogram; readonly clientOperation: Histogram } | undefined;
  #errorType: string | undefined;

  constructor(tracer: Tracer, facts: RequestFacts, instruments?: { readonly serverOperation: Histogram; readonly clientOperation: Histogram }) {
    this.#tracer = tracer;
    this.#facts = facts;
    this.#instruments = instruments;
    this.#server = tracer.startSpan(
      spanName(facts.method, facts.tool ?? facts.prompt),
      {
        kind: SpanKind.SERVER,
        attributes: {
          [N.ATTR_MCP_METHOD_NAME]: facts.method,
          [N.ATTR_JSONRPC_REQUEST_ID]: String(facts.id),
          [N.ATTR_NETWORK_TRANSPORT]: facts.upstream.transport,
          [N.ATTR_RETROFIT_UPSTREAM]: facts.upstream.name,
          ...(facts.upstream.address !== undefined && { [N.ATTR_SERVER_ADDRESS]: facts.upstream.address }),
          ...(facts.upstream.port !== undefined && { [N.ATTR_SERVER_PORT]: facts.upstream.port }),
          ...(facts.revision !== undefined && { [N.ATTR_MCP_PROTOCOL_VERSION]: facts.revision }),
          ...(facts.session !== undefined && { [N.ATTR_MCP_SESSION_ID]: facts.session }),
          ...(facts.tool !== undefined && { [N.ATTR_GEN_AI_TOOL_NAME]: facts.tool, [N.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool' }),
          ...(facts.prompt !== undefined && { [N.ATTR_GEN_AI_PROMPT_NAME]: facts.prompt }),
        },
      },
      parentOf(facts),
    );
    if (facts.capture && facts.arguments !== undefined) this.#server.setAttribute(N.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, bounded(facts.capture.redactArguments(JSON.stringify(facts.arguments))));
  }

  /** The CLIENT span for the upstream exchange (started once), and the context the upstream must receive. */
  upstreamContext(): { traceparent: string; tracestate?: string } {
    if (!this.#client) {
      this.#clientStarted = performance.now();
      const parent = trace.setSpan(ROOT_CONTEXT, this.#server);
      this.#client = this.#tracer.startSpan(
        spanName(this.#facts.method, this.#facts.tool ?? this.#facts.prompt),
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [N.ATTR_MCP_METHOD_NAME]: this.#facts.method,
            [N.ATTR_JSONRPC_REQUEST_ID]: String(this.#facts.id),
            [N.ATTR_NETWORK_TRANSPORT]: this.#facts.upstream.transport,
            ...(this.#facts.upstream.address !== undefined && { [N.ATTR_SERVER_ADDRESS]: this.#facts.upstream.address }),
            ...(this.#facts.upstream.port !== undefined && { [N.ATTR_SERVER_PORT]: this.#facts.upstream.port }),
            ...(this.#facts.tool !== undefined && { [N.ATTR_GEN_AI_TOOL_NAME]: this.#facts.tool }),
          },
        },
        parent,
      );
    }
    const carrier: Record<string, string> = {};
    W3C.inject(trace.setSpan(ROOT_CONTEXT, this.#client), carrier, { set: (c, k, v) => void (c[k] = v) });
    // An empty tracestate (the client's did not parse) is not sent: W3C asks vendors to avoid sending one.
    return { traceparent: carrier.traceparent ?? '', ...(carrier.tracestate !== undefined && carrier.tracestate !== '' && { tracestate: carrier.tracestate }) };
  }

  /** The retrofit of the answer, on the SERVER span. */
  retrofit(facts: RetrofitFacts): void {
    this.#server.setAttributes({
      [N.ATTR_RETROFIT_OUTCOME]: facts.outcome,
      [N.ATTR_RETROFIT_FORMAT]: facts.format,
      [N.ATTR_RETROFIT_MODE]: facts.mode,
      [N.ATTR_RETROFIT_FAILURES]: facts.failures,
      ...(facts.profile !== undefined && { [N.ATTR_RETROFIT_PROFILE]: facts.profile }),
    });
  }

  /** What the retrofit read (text characters), gave the client (the result's JSON bytes), and took (ms). */
  retrofitCost(cost: { readonly ms: number; readonly textBytes: number; readonly resultBytes?: number }): void {
    this.#server.setAttributes({
      [N.ATTR_RETROFIT_DURATION_MS]: Math.round(cost.ms * 1000) / 1000,
      [N.ATTR_RETROFIT_TEXT_BYTES]: cost.textBytes,
      ...(cost.resultBytes !== undefined && { [N.ATTR_RETROFIT_RESULT_BYTES]: cost.resultBytes }),
    });
  }

  /** The client profile the answer was shaped for. */
  profile(name: string): void {
    this.#server.setAttribute(N.ATTR_RETROFIT_PROFILE, name);
  }

  /** A tools/call answered with `isError: true`: a failed operation, though JSON-RPC succeeded. */
  toolError(): void {
    this.#errorType = 'tool_error';
    this.#server.setAttribute(N.ATTR_ERROR_TYPE, 'tool_error');
    this.#server.setStatus({ code: SpanStatusCode.ERROR });
  }

  /** Whether the result's text is recorded (opted in): a worker that holds the result then sends its text along. */
  get captures(): boolean {
    return this.#facts.capture !== undefined;
  }

  /** Opted in: the result the client got, as text (./content.ts capturedText), redacted and bounded. */
  result(result: JsonObject): void {
    if (this.#facts.capture) this.resultText(capturedText(result));
  }

  /** Opted in: the capturedText of the result the client got, computed where the result was (a worker). */
  resultText(text: string): void {
    const capture = this.#facts.capture;
    if (capture) this.#server.setAttribute(N.ATTR_GEN_AI_TOOL_CALL_RESULT, bounded(capture.redactResult(text)));
  }

  /**
   * The conventions' operation durations, with their low-cardinality attributes. The method, tool and prompt
   * names and the revision are the client's to choose, and the SDK neither cuts metric attributes (span limits
   * do not reach them) nor forgets a series: they are labelled as /metrics labels them (src/metrics.ts), a
   * method or revision MCP does not define as `other`, a name longer than TOOL_NAME_CHARS as `other`.
   */
  #measure(outcome: { readonly rpcError?: number | undefined; readonly errorType?: string | undefined; readonly aborted?: boolean }): void {
    const f = this.#facts;
    const errorType = outcome.rpcError !== undefined ? (outcome.errorType ?? String(outcome.rpcError)) : outcome.aborted ? 'cancelled' : this.#errorType;
    const name = (text: string): string => (keepsState(text) ? text : 'other');
    const attributes: Attributes = {
      [N.ATTR_MCP_METHOD_NAME]: methodLabel(f.method),
      [N.ATTR_NETWORK_TRANSPORT]: f.upstream.transport,
      ...(f.tool !== undefined && { [N.ATTR_GEN_AI_TOOL_NAME]: name(f.tool), [N.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool' }),
      ...(f.prompt !== undefined && { [N.ATTR_GEN_AI_PROMPT_NAME]: name(f.prompt) }),
      ...(f.revision !== undefined && { [N.ATTR_MCP_PROTOCOL_VERSION]: revisionLabel(f.revision) }),
      ...(errorType !== undefined && { [N.ATTR_ERROR_TYPE]: errorType }),
      ...(outcome.rpcError !== undefined && { [N.ATTR_RPC_RESPONSE_STATUS_CODE]: String(outcome.rpcError) }),
    };
    const now = performance.now();
    this.#instruments!.serverOperation.record((now - this.#started) / 1000, attributes);
    if (this.#clientStarted !== undefined) {
      this.#instruments!.clientOperation.record((now - this.#clientStarted) / 1000, { ...attributes, ...(f.upstream.address !== undefined && { [N.ATTR_SERVER_ADDRESS]: f.upstream.address }), ...(f.upstream.port !== undefined && { [N.ATTR_SERVER_PORT]: f.upstream.port }) });
    }
  }

  /** End both spans; an error answer's JSON-RPC code, or the gateway's own error class, marks them failed. */
  end(outcome: { readonly rpcError?: number | undefined; readonly errorType?: string | undefined; readonly aborted?: boolean }): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#instruments) this.#measure(outcome);
    for (const span of [this.#client, this.#server]) {
      if (!span) continue;
      if (outcome.rpcError !== undefined) {
        span.setAttributes({ [N.ATTR_RPC_RESPONSE_STATUS_CODE]: String(outcome.rpcError), [N.ATTR_ERROR_TYPE]: outcome.errorType ?? String(outcome.rpcError) });
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (outcome.aborted) {
        span.setAttribute(N.ATTR_ERROR_TYPE, 'cancelled');
      }
      span.end();
    }
  }
}

/** A message's `params._meta`, when it has one. */
export function metaOf(message: unknown): JsonObject | undefined {
  return isJsonObject(message) && isJsonObject(message.params) && isJsonObject(message.params._meta) ? message.params._meta : undefined;
}

/**
 * A copy of a request message whose `params._meta` carries `ctx` (traceparent, tracestate) in place of the
 * client's: a client's tracestate the propagator did not take (it did not parse, or went with a traceparent
 * that did not) is not passed on beside the gateway's traceparent.
 */
export function withTraceMeta(message: JsonObject, ctx: { traceparent: string; tracestate?: string }): JsonObject {
  const params = isJsonObject(message.params) ? message.params : {};
  const { traceparent: _parent, tracestate: _state, ...meta } = isJsonObject(params._meta) ? params._meta : {};
  return { ...message, params: { ...params, _meta: { ...meta, ...ctx } } };
}
