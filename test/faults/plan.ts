/**
 * A session's plan: a pure function of its seed and fault kind. The seed picks the target (among those the
 * kind applies to: consecutive seeds take them in turn), the client's revision, the requests (tools/list, tools/call of a passthrough or a
 * retrofitted tool, with notifications, JSON or SSE answers, SSE framing variants) and where and how the
 * fault strikes. Replaying a seed with the same kind gives the same session. A 2026-07-28 client's requests
 * carry the revision's `_meta` envelope (and its directives the client's own id: ./directive.ts `rid`).
 */
import { DIRECTIVE_KEY, LIMITS, type Directive, type Framing, type UpstreamFault } from './directive.js';
import { SESSION_CAP, TARGETS, UPSTREAM_TIMEOUT_MS, type Target } from './harness.js';
import { KINDS, targetsOf, type FaultKind } from './kinds.js';
import { stream, type Rng } from './prng.js';

/** What the client does wrong (or slowly) on one request. */
export type ClientFault =
  | { readonly kind: 'slowloris'; readonly chunk: number; readonly gapMs: number; readonly stallAfter?: number }
  | { readonly kind: 'slow-read'; readonly pauseMs: number; readonly gapMs: number }
  | { readonly kind: 'vanish'; readonly at: 'sent' | 'first-event'; readonly returns: boolean }
  /** Read nothing of the answer after its headers (the gateway backs up), then vanish after `ms`, and come back. */
  | { readonly kind: 'stop-reading-vanish'; readonly ms: number }
  | { readonly kind: 'expect-continue' };

export type JsonRpcRequest = { readonly jsonrpc: '2.0'; readonly id: string | number; readonly method: string; readonly params: Record<string, unknown> };

/** One POST: a request (or a batch of them), maybe with a client fault. */
export interface PostPlan {
  readonly messages: readonly JsonRpcRequest[];
  readonly client?: ClientFault;
  /** Its answers must be exactly what the upstream sent (passthrough tools, notifications, framing). */
  readonly compare: boolean;
}

export interface SessionPlan {
  readonly seed: number;
  readonly kind: FaultKind;
  /** What the upstreams record this session's requests under (its kind and seed: unique in a run). */
  readonly tag: string;
  readonly target: Target;
  /** The revision the client asks for at initialize (and sends in MCP-Protocol-Version); 2026-07-28 on stateless targets. */
  readonly revision: string;
  /** A 2026-07-28 client's `_meta` logLevel on every request (none: the gateway passes no log message on). */
  readonly logLevel?: string;
  /** The POSTs go out together rather than one after the other. */
  readonly parallel: boolean;
  readonly posts: readonly PostPlan[];
  /** Extra sessions opened at once at the start (init-burst), or just after the session's own (slow-initialize). */
  readonly burst: number;
  /** slow-initialize: the upstream answers the session's own initialize this late (past the gateway's timeout). */
  readonly initDelayMs?: number;
  /** A Streamable HTTP client opens its GET stream after initialize and keeps it to the end. */
  readonly listen: boolean;
  /**
   * The proxied target only: the session was made directly with the upstream, so the gateway has not seen it
   * (made through another replica, or before a restart) when its GET stream comes.
   */
  readonly foreign: boolean;
  /** Method names the client made up (random-methods): none may outlive the session in /metrics. */
  readonly madeUp: readonly string[];
}

const SALT = { plan: 2 } as const;
/** The session-less revision the stateless targets' clients speak. */
export const MODERN = '2026-07-28';
/** The revisions of the older clients of the 2026-07-28-only upstream (all of Streamable HTTP's, and 2024-11-05 over it). */
const HELD_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** The `_meta` envelope every request of a 2026-07-28 client carries. */
export function envelope(logLevel: string | undefined): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'fault-client', version: '1.0.0' },
    ...(logLevel !== undefined && { 'io.modelcontextprotocol/logLevel': logLevel }),
  };
}
/** The `large` kind's padding: past OFFLOAD_BYTES (256 KiB), and under half the limit (`native` carries it twice). */
const LARGE_FROM = 256 * 1024 + 4096;
const LARGE_TO = 448 * 1024;
/** Where an endless message's filler starts doubling from (the limit it passed when the limit was 256 KiB). */
const ENDLESS_FROM = 256 * 1024;
const TEXT_EXTRAS = ['', ' ø', ' "quoted"', ' back\\slash', ' line\nbreak', ' 🚀', ' tab\tand\u0001control'];

function text(rng: Rng): string {
  return `${rng.token(rng.int(1, 24))}${rng.pick(TEXT_EXTRAS)}`;
}

function framing(rng: Rng): Framing {
  return { ids: rng.chance(0.5), preamble: rng.chance(0.3), multiline: rng.chance(0.3), crlf: rng.chance(0.2) };
}

/** Builds one session's requests (ids, directives, progress tokens). */
class Builder {
  readonly #rng: Rng;
  readonly #tag: string;
  readonly #target: Target;
  /** A 2026-07-28 client's envelope (undefined for clients of the session revisions). */
  readonly #envelope: Record<string, unknown> | undefined;
  #next = 1;

  constructor(rng: Rng, tag: string, target: Target, envelope?: Record<string, unknown>) {
    this.#rng = rng;
    this.#tag = tag;
    this.#target = target;
    this.#envelope = envelope;
  }

  /** The directive of a message that needs nothing but the tag (keeps a 1,000-request batch small). */
  bare(): Directive {
    return { tag: this.#tag };
  }

  id(): string | number {
    const n = this.#next++;
    return this.#rng.chance(0.3) ? `r${n}` : n;
  }

  /** A directive with this session's tag; from a Streamable HTTP upstream, SSE when anything but one answer is sent. */
  directive(extra: Omit<Directive, 'tag'> = {}, needsSse = false): Directive {
    const rng = this.#rng;
    const upstream = TARGETS[this.#target].upstream;
    const sse = (upstream === 'http' || upstream === 'modern') && (needsSse || (extra.notes ?? 0) > 0 || rng.chance(0.5));
    return { tag: this.#tag, mode: sse ? 'sse' : 'json', ...(sse && { framing: framing(rng) }), ...extra };
  }

  request(method: string, params: Record<string, unknown>, d: Directive, progress: boolean, id = this.id()): JsonRpcRequest {
    const meta: Record<string, unknown> = this.#envelope ? { ...this.#envelope, [DIRECTIVE_KEY]: { ...d, rid: id } } : { [DIRECTIVE_KEY]: d };
    if (progress) meta.progressToken = `p-${String(id)}`;
    return { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } };
  }

  /** tools/call of a random tool (echo and native pass through; weather is retrofitted). */
  call(d: Directive, progress: boolean, tool = this.#rng.pick(['echo', 'echo', 'native', 'weather'] as const), id = this.id()): JsonRpcRequest {
    const args = tool === 'weather' ? { city: this.#rng.pick(['Oslo', 'Lima', 'Ulaanbaatar']) } : { text: text(this.#rng) };
    return this.request('tools/call', { name: tool, arguments: args }, d, progress, id);
  }
}

/** A 2026-07-28 request that declares the client's `roots` capability (its retry answers roots/list). */
function withRoots(m: JsonRpcRequest): JsonRpcRequest {
  const meta = m.params._meta as Record<string, unknown>;
  const key = 'io.modelcontextprotocol/clientCapabilities';
  if (!(key in meta)) return m;
  return { ...m, params: { ...m.params, _meta: { ...meta, [key]: { roots: {} } } } };
}

function isPassthrough(m: JsonRpcRequest): boolean {
  return m.method === 'tools/call' && (m.params.name === 'echo' || m.params.name === 'native');
}

/** The upstream fault of a kind (undefined for client-side kinds). */
function upstreamFault(kind: FaultKind, rng: Rng, notes: number, target: Target): UpstreamFault | undefined {
  switch (kind) {
    case 'upstream-killed':
      return { kind: 'kill', after: rng.int(0, notes), partial: rng.chance(0.5) };
    case 'reset-mid-event':
      return { kind: 'reset', after: rng.int(0, notes), fraction: rng.pick([0.1, 0.5, 0.9]) };
    case 'reset-early':
      return { kind: 'reset-early', headers: rng.chance(0.5) };
    case 'half-line':
      return { kind: 'half-line', at: rng.int(1, 60) };
    case 'invalid-utf8':
    case 'oversized':
    case 'unknown-id':
    case 'duplicate-answer':
      return { kind };
    case 'endless': {
      // From twice the limit up to 32 MB: a gateway that holds a message whole, whatever its size, shows in its
      // memory. On the proxied target's own GET stream, where no request waits, 512 MB: far past the peak
      // allowance, whatever room the allocator had kept from earlier runs.
      const where = rng.pick(target === 'http' ? (['answer', 'after', 'stream'] as const) : (['answer', 'after'] as const));
      const capBytes = where === 'stream' ? 512 * 2 ** 20 : ENDLESS_FROM * 2 ** rng.int(1, 7);
      return { kind: 'endless', capBytes, holdMs: rng.int(200, 1200), where };
    }
    case 'invalid-answer':
      return { kind: 'invalid-answer', shape: rng.int(0, 3) };
    case 'deep-json':
      return { kind: 'deep-json', depth: 100_000 };
    case 'input-required':
      return { kind: 'input-required', rounds: rng.int(1, 2) };
    default:
      return undefined;
  }
}

/** The faulted POST(s) of a kind, at the position the plan chose. */
function faulted(kind: FaultKind, b: Builder, rng: Rng, progress: boolean, target: Target): PostPlan[] {
  const notes = rng.int(0, 3);
  const fault = upstreamFault(kind, rng, notes, target);
  if (fault) {
    const needsSse = ['reset-mid-event', 'half-line', 'unknown-id', 'duplicate-answer'].includes(kind) || (fault.kind === 'reset-early' && fault.headers);
    const pad = kind === 'oversized' ? LIMITS.maxResultBytes + rng.int(1, 64 * 1024) : 0;
    const n = kind === 'oversized' ? 0 : notes;
    const call = b.call(b.directive({ notes: n, gapMs: rng.int(0, 5), pad, fault }, needsSse), progress, rng.pick(['echo', 'native', 'weather']));
    // The client declares roots, which the call asks for, as a client that answers roots/list does.
    return [{ messages: [kind === 'input-required' ? withRoots(call) : call], compare: false }];
  }
  switch (kind) {
    case 'large':
      // Each notification and the answer's text past the size a message is held in shared memory from (a
      // `native` answer carries its text twice: still within the limit), in any framing, cut anywhere.
      return [{ messages: [b.call(b.directive({ notes: rng.int(0, 2), gapMs: rng.int(0, 5), pad: rng.int(LARGE_FROM, LARGE_TO) }), progress, rng.pick(['echo', 'native', 'weather']))], compare: true }];
    case 'stall-stdin': {
      // The child stops reading; then a megabyte or two of requests, far past its stdin pipe's 64 KB.
      const stall = b.call(b.directive({ fault: { kind: 'stall-stdin', ms: rng.int(200, 600) } }), progress, 'echo');
      const big = Array.from({ length: rng.int(8, 12) }, () => {
        const m = b.call(b.directive({}), progress, 'echo');
        const args = m.params.arguments as Record<string, unknown>;
        return { ...m, params: { ...m.params, arguments: { text: `${String(args.text)}${'x'.repeat(rng.int(100, 200) * 1024)}` } } };
      });
      return [{ messages: [stall], compare: true }, ...big.map((m) => ({ messages: [m], compare: true }))];
    }
    case 'slow-reader':
      // A megabyte or three, read a chunk at a time with pauses between: the gateway's writes wait on the client.
      return [{ messages: [b.call(b.directive({ notes: rng.int(24, 48), pad: rng.int(32, 64) * 1024 }, true), progress, 'echo')], client: { kind: 'slow-read', pauseMs: rng.int(300, 800), gapMs: rng.int(5, 20) }, compare: true }];
    case 'backed-up-vanish':
      // Megabytes of notifications for a client that reads none of them, then leaves while the gateway waits on it.
      return [{ messages: [b.call(b.directive({ notes: rng.int(16, 40), pad: rng.int(24, 64) * 1024 }, true), progress, 'echo')], client: { kind: 'stop-reading-vanish', ms: rng.int(200, 600) }, compare: false }];
    case 'client-vanish':
      return [{ messages: [b.call(b.directive({ notes: rng.int(2, 4), gapMs: rng.int(20, 50) }, true), progress, 'echo')], client: { kind: 'vanish', at: rng.pick(['sent', 'first-event']), returns: rng.chance(0.7) }, compare: false }];
    case 'slowloris': {
      const stall = rng.chance(0.3);
      const m = b.call(b.directive({}), progress);
      const size = Buffer.byteLength(JSON.stringify(m));
      return [{ messages: [m], client: { kind: 'slowloris', chunk: rng.int(8, 64), gapMs: rng.int(5, 25), ...(stall && { stallAfter: Math.floor(size / 2) }) }, compare: !stall }];
    }
    case 'duplicate-id': {
      const first = b.call(b.directive({ notes: 2, gapMs: rng.int(30, 60) }, true), progress, 'echo');
      return [{ messages: [first], compare: false }, { messages: [b.call(b.directive({}), false, 'echo', first.id)], compare: false }];
    }
    case 'random-methods':
      return Array.from({ length: rng.int(2, 4) }, () => ({ messages: [b.request(`x-${rng.token(8)}/${rng.token(6)}`, {}, b.directive({}), false)], compare: false }));
    case 'expect-continue':
      return [{ messages: [b.call(b.directive({}), progress, rng.pick(['echo', 'native']))], client: { kind: 'expect-continue' }, compare: true }];
    case 'pending-flood': {
      // Up to the 1000 a session keeps in flight (and a batch may hold); past it, the whole POST is refused.
      const n = rng.int(990, 1100);
      const first = b.call(b.directive({ delayMs: 300 }, true), false, 'echo');
      const rest = Array.from({ length: n - 1 }, () => b.request('ping', {}, b.bare(), false));
      return [{ messages: [first, ...rest], compare: false }];
    }
    default:
      return [];
  }
}

/** A small number of its own for each kind (FNV-1a of its name): what turns the targets' wheel for it. */
function kindSalt(kind: FaultKind): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < kind.length; i++) h = Math.imul(h ^ kind.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export function makePlan(seed: number, kind: FaultKind, allowed: readonly Target[]): SessionPlan {
  // Seeds in a row go round the kind's targets, so a handful of sessions of a kind covers all of them.
  const targets = targetsOf(kind, allowed);
  const target = targets[((seed >>> 0) + kindSalt(kind)) % targets.length]!;
  const rng = stream(seed, SALT.plan);
  const tag = `${kind}:${seed}`;
  const stateless = TARGETS[target].client === 'stateless';
  const logLevel = stateless && rng.chance(0.5) ? rng.pick(['debug', 'info']) : undefined;
  const b = new Builder(rng, tag, target, stateless ? envelope(logLevel) : undefined);
  const revision = stateless
    ? MODERN
    : kind === 'pending-flood'
      ? '2025-03-26'
      : target === 'legacy'
        ? rng.pick(['2024-11-05', '2025-03-26'])
        : target === 'modern'
          ? rng.pick(HELD_REVISIONS)
          : rng.pick(['2025-03-26', '2025-06-18', '2025-11-25']);
  // In a session the gateway owns, a notification reaches the right stream by its progress token, or when
  // its request is the only one in flight: concurrent requests carry tokens.
  const parallel = kind === 'stall-stdin' || kind === 'duplicate-id' || (kind !== 'backed-up-vanish' && rng.chance(0.3));
  const progress = parallel || rng.chance(0.5);
  const plain = (): PostPlan => {
    const m = rng.chance(0.2) ? b.request('tools/list', {}, b.directive({}), false) : b.call(b.directive({ notes: rng.int(0, 2), gapMs: rng.int(0, 3) }), progress);
    return { messages: [m], compare: m.method === 'tools/list' || isPassthrough(m) };
  };
  const before = Array.from({ length: rng.int(0, 2) }, plain);
  const fault = kind === 'none' ? [plain()] : faulted(kind, b, rng, progress, target);
  // What comes after a fault shows whether the session still works (backed-up-vanish: the child is read again).
  const after = Array.from({ length: kind === 'backed-up-vanish' ? rng.int(1, 2) : rng.int(0, 2) }, plain);
  const posts = [...before, ...fault, ...after].map((p) => ({ ...p, compare: p.compare && KINDS[kind].clean && p.messages.every((m) => m.method === 'tools/list' || isPassthrough(m)) }));
  const madeUp = fault.flatMap((p) => p.messages.map((m) => m.method)).filter((m) => m.startsWith('x-'));
  const burst = kind === 'init-burst' ? rng.int(4, 12) : kind === 'session-cap' ? SESSION_CAP + rng.int(4, 12) : kind === 'slow-initialize' ? rng.int(2, 4) : 0;
  const onStream = posts.some((p) => p.messages.some((m) => (m.params._meta as Record<string, { fault?: { where?: string } }>)[DIRECTIVE_KEY]?.fault?.where === 'stream'));
  // A 2026-07-28 client has no GET stream.
  const listen = onStream || (target !== 'legacy' && !stateless && rng.chance(0.2));
  const initDelayMs = kind === 'slow-initialize' ? UPSTREAM_TIMEOUT_MS + rng.int(500, 2_000) : undefined;
  return { seed, kind, tag, target, revision, parallel, posts, burst, listen, foreign: onStream, madeUp, ...(initDelayMs !== undefined && { initDelayMs }), ...(logLevel !== undefined && { logLevel }) };
}
