/**
 * The one place the edge starts a request's spans (src/telemetry/spans.ts), whichever route took it: the
 * request's facts, and the server behind the gateway as the conventions name it (`server.address` /
 * `server.port` of an HTTP upstream, `network.transport` `pipe` for a stdio child). Undefined when tracing is
 * off, so the callers' only cost then is one property read.
 */
import type { UpstreamConfig } from '../config/types.js';
import { messageTexts } from '../jsonrpc/batch-elements.js';
import type { ClassifiedBody, ClassifiedMessage } from '../jsonrpc/classify.js';
import { stringifyKept, trailOf } from '../json-literals.js';
import { isJsonObject, type Json } from '../json.js';
import { argumentStrings, textScrubber } from '../record/scrub.js';
import { ATTR_MCP_PROTOCOL_VERSION, ATTR_NETWORK_TRANSPORT } from '../telemetry/names.js';
import { RequestTrace, metaOf, withTraceMeta, type UpstreamTarget } from '../telemetry/spans.js';
import { snapshot, type GatewayContext } from './context.js';

/** The server behind the gateway, for span attributes. */
function targetOf(upstream: UpstreamConfig): UpstreamTarget {
  if (upstream.kind === 'stdio') return { name: upstream.name, transport: 'pipe' };
  const url = new URL(upstream.kind === 'sse' ? upstream.sse : upstream.url);
  return { name: upstream.name, transport: 'tcp', address: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}

/** Opted-in content, redacted as recordings are: the config's secrets everywhere, the arguments' values in results. */
function captureFor(ctx: GatewayContext, args: unknown): { redactArguments: (json: string) => string; redactResult: (text: string) => string } {
  const hideArguments = textScrubber(argumentStrings(args as Json));
  return { redactArguments: (json) => ctx.scrub(json), redactResult: (text) => ctx.scrub(hideArguments(text)) };
}

/**
 * Records a held session's lifetime (mcp.server.session.duration), by transport and the revision it spoke,
 * when metrics go over OTLP.
 */
export function sessionEnded(ctx: GatewayContext, upstream: string): (seconds: number, session: { readonly owned: { readonly state: { readonly clientRevision: string | undefined } } }) => void {
  return (seconds, session) => {
    const kind = snapshot(ctx, upstream).upstream.kind;
    const revision = session.owned.state.clientRevision;
    ctx.telemetry.instruments?.serverSession.record(seconds, { [ATTR_NETWORK_TRANSPORT]: kind === 'stdio' ? 'pipe' : 'tcp', ...(revision !== undefined && { [ATTR_MCP_PROTOCOL_VERSION]: revision }) });
  };
}

/** What is known of the request besides its message. */
export interface TraceContext {
  readonly revision?: string | undefined;
  readonly session?: string | undefined;
  readonly headers: Readonly<Record<string, unknown>>;
}

/** The spans of request `m` to `upstream`, when tracing is on and `m` is a request. */
export function traceRequest(ctx: GatewayContext, m: ClassifiedMessage, upstream: UpstreamConfig, where: TraceContext): RequestTrace | undefined {
  const tracer = ctx.telemetry.tracer;
  if (!tracer || m.kind !== 'request' || m.id === undefined || m.id === null || m.method === undefined) return undefined;
  const meta = metaOf(m.message);
  const params = isJsonObject(m.message) && isJsonObject(m.message.params) ? m.message.params : undefined;
  const args = m.method === 'tools/call' ? params?.arguments : undefined;
  return new RequestTrace(tracer, {
    ...(ctx.telemetry.captureContent && m.method === 'tools/call' && { arguments: args, capture: captureFor(ctx, args) }),
    method: m.method,
    id: m.id,
    ...(m.method === 'tools/call' && m.name !== undefined && { tool: m.name }),
    ...(m.method === 'prompts/get' && m.name !== undefined && { prompt: m.name }),
    ...(where.revision !== undefined && { revision: where.revision }),
    ...(where.session !== undefined && { session: where.session }),
    ...(meta && { meta }),
    headers: where.headers,
    upstream: targetOf(upstream),
  }, ctx.telemetry.instruments);
}

/**
 * The text request `m` goes upstream as: `own` (the client's text of it) as it came, or, traced, with its CLIENT
 * span's context in `params._meta`, written again with the client's number literals a double cannot hold as
 * the client wrote them (`12345678901234567890` in its arguments; src/json-literals.ts: one cheap scan of `own`).
 */
export function upstreamText(m: ClassifiedMessage, own: string, trace: RequestTrace | undefined): string {
  return trace && isJsonObject(m.message) ? stringifyKept(withTraceMeta(m.message, trace.upstreamContext()), trailOf(own)) : own;
}

/**
 * The JSON text the upstream gets for `messages` (`texts`: the client's text of each, in order: messageTexts):
 * each traced request with its CLIENT span's context in `params._meta` (upstreamText), the others as they came
 * (a batch stays a batch, its elements as the client wrote them).
 */
export function upstreamBodyText(messages: readonly ClassifiedMessage[], texts: readonly string[], batch: boolean, traces: ReadonlyMap<ClassifiedMessage, RequestTrace>): string {
  const out = messages.map((m, i) => upstreamText(m, texts[i]!, traces.get(m)));
  return batch ? `[${out.join(',')}]` : out[0]!;
}

/**
 * A traced proxied body (`text`: the client's, as parsed): the bytes the upstream gets (each request's context in
 * its `_meta`), with the first request's context set in `headers` (`traceparent`, and `tracestate` when it has one).
 */
export function tracedUpstream(body: ClassifiedBody, text: string, traces: ReadonlyMap<ClassifiedMessage, RequestTrace>, headers: Record<string, string | string[]>): Buffer {
  const first = traces.values().next().value!.upstreamContext();
  headers.traceparent = first.traceparent;
  if (first.tracestate !== undefined) headers.tracestate = first.tracestate;
  else delete headers.tracestate;
  return Buffer.from(upstreamBodyText(body.messages, messageTexts(text, body), body.batch, traces), 'utf8');
}
