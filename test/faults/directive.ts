/**
 * What a client's request tells the fault upstreams: a directive in `params._meta["x-fault"]` (passed through
 * by the gateway like any `_meta` key) says how to answer — JSON or SSE, how many notifications first, how
 * much padding, how to frame SSE — and which fault to commit, and where. One upstream process of each kind
 * thus serves every session of a run, each session its own faults. Also here: the upstreams' tools and the
 * answers they give, the same for every transport.
 */

export const DIRECTIVE_KEY = 'x-fault';

/**
 * The gateway's limits in the suite's config (small, so faults that exceed them stay cheap). A result may pass
 * the 256 KiB at which the gateway holds a message in shared memory and retrofits it on a worker (the `large`
 * kind's messages lie between the two).
 */
export const LIMITS = Object.freeze({
  maxRequestBytes: 256 * 1024,
  maxResultBytes: 1024 * 1024,
  // A stalled body is cut well within the client's deadline (STALLED_BODY_DEADLINE_MS); a trickled one (a few
  // hundred bytes, 8–64 at a time, 5–25 ms apart) arrives in time.
  headersTimeoutMs: 2_000,
  requestTimeoutMs: 4_000,
});

/** How the http upstream frames an SSE answer (byte-exact passthrough is part of the contract). */
export interface Framing {
  /** `id:` on every event. */
  readonly ids: boolean;
  /** A `: comment` and a `retry:` field before the first event. */
  readonly preamble: boolean;
  /** The JSON text split over several `data:` lines. */
  readonly multiline: boolean;
  /** CRLF line ends. */
  readonly crlf: boolean;
}

/** A fault the upstream commits while answering one request. */
export type UpstreamFault =
  /** The upstream dies (a stdio child exits; an HTTP upstream drops every connection of the session and forgets it) after `after` notifications, mid-answer when `partial`. */
  | { readonly kind: 'kill'; readonly after: number; readonly partial: boolean }
  /** This exchange's connection is reset after `after` notifications, `fraction` into the next event. */
  | { readonly kind: 'reset'; readonly after: number; readonly fraction: number }
  /** The connection is reset before any byte of the answer (after the response headers when `headers`). */
  | { readonly kind: 'reset-early'; readonly headers: boolean }
  /** A truncated copy of the answer first, then the answer written in two parts with a pause between. */
  | { readonly kind: 'half-line'; readonly at: number }
  /** Invalid UTF-8 bytes inside the answer's text. */
  | { readonly kind: 'invalid-utf8' }
  /** The answer (a line, an event, a body) larger than limits.maxResultBytes. */
  | { readonly kind: 'oversized' }
  /**
   * A message starts and never ends: filler up to `capBytes` (as fast as it is read), then `holdMs` of nothing,
   * then the frame is cut off. In place of the answer; or once the answer was sent, on the same stream
   * (`after`); or on the session's own GET stream (`stream`, http upstream), the answer sent as usual.
   */
  | { readonly kind: 'endless'; readonly capBytes: number; readonly holdMs: number; readonly where: 'answer' | 'after' | 'stream' }
  /** Answers to ids nobody asked for, before the real one. */
  | { readonly kind: 'unknown-id' }
  /** The answer twice. */
  | { readonly kind: 'duplicate-answer' }
  /** An answer to the pending id that is not valid JSON-RPC (shape 0..3), and nothing else. */
  | { readonly kind: 'invalid-answer'; readonly shape: number }
  /** An answer holding JSON nested `depth` deep. */
  | { readonly kind: 'deep-json'; readonly depth: number }
  /** A stdio child stops reading its stdin for `ms` (the gateway's writes back up). */
  | { readonly kind: 'stall-stdin'; readonly ms: number }
  /**
   * 2026-07-28: the call needs the client's input `rounds` times (an `input_required` result asking for its
   * roots, with a `requestState` that counts the rounds) before it is answered.
   */
  | { readonly kind: 'input-required'; readonly rounds: number };

export interface Directive {
  /** The session's tag, its kind and seed (what the upstream records under). */
  readonly tag: string;
  /** http upstream: answer as JSON or as an SSE stream. */
  readonly mode?: 'json' | 'sse';
  /** Notifications before the answer (progress with the request's token, else log messages). */
  readonly notes?: number;
  /** Pause before anything is written for it (ms): later answers on the same stream or pipe queue behind it. */
  readonly delayMs?: number;
  /** Pause between notifications (ms). */
  readonly gapMs?: number;
  /** Padding added to each notification and to the answer's text (bytes). */
  readonly pad?: number;
  readonly framing?: Framing;
  readonly fault?: UpstreamFault;
  /**
   * The client's own id of the request (2026-07-28 clients): a gateway that serves them on pooled sessions
   * sends it upstream under an id of its own (`rf-<n>`), and the upstream records it under this one.
   */
  readonly rid?: string | number;
}

/** The directive of a parsed request, if it has one. */
export function directiveOf(message: Record<string, unknown>): Directive | undefined {
  const params = message.params as { _meta?: Record<string, unknown> } | undefined;
  const d = params?._meta?.[DIRECTIVE_KEY];
  return typeof d === 'object' && d !== null && typeof (d as Directive).tag === 'string' ? (d as Directive) : undefined;
}

/** The id an upstream records a request under: the client's own (`rid`) when the directive names it. */
export function recordId(message: Record<string, unknown>): unknown {
  return directiveOf(message)?.rid ?? message.id;
}

/** The progress token of a parsed request, if it has one. */
export function progressTokenOf(message: Record<string, unknown>): string | number | undefined {
  const params = message.params as { _meta?: { progressToken?: unknown } } | undefined;
  const token = params?._meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** Tools every fault upstream lists. `weather` has a configured schema (the gateway rewrites it); the others pass through. */
export const TOOLS = Object.freeze([
  { name: 'echo', description: 'Echoes text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  {
    name: 'native',
    description: 'Answers with its own structuredContent',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    outputSchema: { type: 'object', properties: { echoed: { type: 'string' }, length: { type: 'integer' } }, required: ['echoed', 'length'] },
  },
  { name: 'weather', description: 'Weather as JSON text', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
]);

/**
 * Tools that reach a client of `revision` unchanged (no configured schema): what the differential invariant
 * compares. `native`'s own outputSchema and structuredContent are removed for clients before 2025-06-18
 * (the contract's era projection), so it passes through only from that revision on.
 */
export function passthroughTools(revision: string): ReadonlySet<string> {
  return new Set(revision >= '2025-06-18' ? ['echo', 'native'] : ['echo']);
}

/** The outputSchema the suite's config gives `weather`. */
export const WEATHER_SCHEMA = Object.freeze({
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
});

/** The result of a tools/call of one of TOOLS (`pad` bytes of padding in its text). */
export function toolResult(name: unknown, args: Record<string, unknown>, pad: number): Record<string, unknown> {
  const text = `${typeof args.text === 'string' ? args.text : ''}${'.'.repeat(pad)}`;
  if (name === 'echo') return { content: [{ type: 'text', text }] };
  if (name === 'native') return { content: [{ type: 'text', text: JSON.stringify({ echoed: text, length: text.length }) }], structuredContent: { echoed: text, length: text.length } };
  if (name === 'weather') {
    const city = typeof args.city === 'string' ? args.city : 'Oslo';
    return { content: [{ type: 'text', text: JSON.stringify({ city, temperature: city.length * 3 - 7, note: '.'.repeat(pad) }) }] };
  }
  return { content: [{ type: 'text', text: `unknown tool ${String(name)}` }], isError: true };
}

/** Revisions the upstreams answer as asked; anything else gets this one. */
export const UPSTREAM_REVISIONS = Object.freeze(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
export const DEFAULT_UPSTREAM_REVISION = '2025-06-18';
