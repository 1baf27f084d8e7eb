/**
 * Every fault kind the suite injects, the targets it applies to, and whether what the upstream sent must
 * reach the client unchanged (the differential invariant) in its sessions. The 2026-07-28 targets take every
 * kind that needs neither initialize nor a batch (those the revision has not). Each kind is selectable on its
 * own: FAULT_KINDS=reset-mid-event,slow-reader (default: all); FAULT_TARGETS likewise narrows the targets.
 */
import { TARGET_NAMES, TARGETS, type Target } from './harness.js';

export interface KindSpec {
  /** What the fault is, in one line (the report prints it). */
  readonly summary: string;
  readonly targets: readonly Target[];
  /** Nothing the upstream sends is faulty: every request the client left intact must get exactly the upstream's answer. */
  readonly clean: boolean;
  /** The fault slows the session's own upstream: a timeout error is the gateway's right answer when the upstream answered late. */
  readonly slowsUpstream?: boolean;
}

const ALL = TARGET_NAMES;
/** 2026-07-28 clients: no initialize, no session, no batch. */
const STATELESS: readonly Target[] = ALL.filter((t) => TARGETS[t].client === 'stateless');
/** Clients that open a session with initialize. */
const SESSIONS = ALL.filter((t) => !STATELESS.includes(t));
const NOT_SHARED = ALL.filter((t) => t !== 'shared');
const HTTP_CARRIED: readonly Target[] = ['http', 'sse', 'legacy', 'modern', 'stateless-http', 'stateless-sse', 'stateless-modern'];
// A legacy client's stream is its session: one that vanished does not carry on.
const NOT_LEGACY = ALL.filter((t) => t !== 'legacy');
/**
 * Where the upstream answers the session's own initialize: not the 2026-07-28-only one, which never sees it
 * (the gateway answers it from its server/discover, which carries no directive).
 */
const INITIALIZED = SESSIONS.filter((t) => t !== 'modern');

export const KINDS = {
  none: { summary: 'no fault: the client gets what the upstream sent', targets: ALL, clean: true },
  'upstream-killed': { summary: 'the upstream dies at a random point (before, between notifications, mid-answer)', targets: NOT_SHARED, clean: false },
  'reset-mid-event': { summary: 'the connection carrying the answer is reset partway into an SSE event or body', targets: HTTP_CARRIED, clean: false },
  'reset-early': { summary: 'the connection is reset before any byte of the answer (before or after its headers)', targets: HTTP_CARRIED, clean: false },
  'half-line': { summary: 'a truncated copy of the answer, then the answer split in two writes', targets: ALL, clean: false },
  'invalid-utf8': { summary: 'invalid UTF-8 bytes inside the answer', targets: ALL, clean: false },
  oversized: { summary: 'an answer line / event / body larger than limits.maxResultBytes', targets: ALL, clean: false },
  endless: { summary: 'an answer that starts and never ends (filler past the limit, then silence, then cut off)', targets: NOT_SHARED, clean: false },
  'unknown-id': { summary: 'answers to ids nobody asked for, before the real answer', targets: ALL, clean: false },
  'duplicate-answer': { summary: 'the upstream sends the answer twice', targets: ALL, clean: false },
  'invalid-answer': { summary: 'the answer to a pending id is not valid JSON-RPC', targets: ALL, clean: false },
  'deep-json': { summary: 'an answer holding JSON nested 100,000 deep', targets: ALL, clean: false },
  large: { summary: 'notifications and an answer past 256 KiB (held in shared memory, retrofitted on a worker) and within the limit', targets: ALL, clean: true },
  'stall-stdin': { summary: 'the stdio child stops reading stdin while the client sends megabytes of requests', targets: ['stdio', 'shared', 'stateless-stdio'], clean: true, slowsUpstream: true },
  // Not in share mode, where the child is not held back for one session: a reader it outpaces by more than
  // limits.maxResultBytes has its session ended, by design (src/upstream/shared-stdio.ts).
  'slow-reader': { summary: 'the client reads a stream of megabytes slowly (backpressure)', targets: NOT_SHARED, clean: true },
  'backed-up-vanish': { summary: 'the client reads nothing of megabytes of answer, vanishes while the gateway waits on it, then carries on', targets: NOT_LEGACY, clean: true },
  'client-vanish': { summary: 'the client drops its connection mid-stream (and comes back to end its session, or never; 2026-07-28: a cancellation)', targets: ALL, clean: false },
  slowloris: { summary: 'the client sends its body a few bytes at a time, or stops halfway and waits', targets: ALL, clean: false },
  'init-burst': { summary: 'a burst of initializes (new sessions) at once', targets: SESSIONS, clean: true },
  'slow-initialize': { summary: 'the upstream answers an initialize after the gateway gave up on it (other sessions opening meanwhile)', targets: INITIALIZED, clean: true },
  'session-cap': { summary: 'more sessions at once than maxSessions allows (legacy streams and Streamable HTTP)', targets: ['sse', 'legacy'], clean: true },
  'duplicate-id': { summary: 'the client sends two requests with the same id at once', targets: ALL, clean: false },
  'random-methods': { summary: 'requests with client-chosen random method names', targets: ALL, clean: true },
  'expect-continue': { summary: 'a POST with Expect: 100-continue', targets: ALL, clean: true },
  'input-required': { summary: 'a 2026-07-28 call needs the client\'s input once or twice (input_required; for an older client, requests on its session)', targets: ['modern', 'stateless-modern'], clean: false },
  // 2026-07-28 has no batches (refused whole).
  'pending-flood': { summary: 'a batch of ~1,000 requests in flight at once in one session (past 1,000, refused whole)', targets: SESSIONS, clean: false },
} as const satisfies Record<string, KindSpec>;

export type FaultKind = keyof typeof KINDS;
export const KIND_NAMES = Object.keys(KINDS) as FaultKind[];

function list<T extends string>(env: string | undefined, known: readonly T[], what: string): T[] {
  if (env === undefined || env.trim() === '') return [...known];
  const asked = env.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = asked.filter((s) => !(known as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`unknown ${what}: ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return asked as T[];
}

/** The kinds and targets this run covers (FAULT_KINDS, FAULT_TARGETS). */
export function selection(env: NodeJS.ProcessEnv = process.env): { kinds: FaultKind[]; targets: Target[] } {
  const targets = list(env.FAULT_TARGETS, TARGET_NAMES, 'FAULT_TARGETS');
  const kinds = list(env.FAULT_KINDS, KIND_NAMES, 'FAULT_KINDS').filter((k) => KINDS[k].targets.some((t) => targets.includes(t)));
  return { kinds, targets };
}

/** The targets a kind runs on in this selection. */
export function targetsOf(kind: FaultKind, targets: readonly Target[]): Target[] {
  return KINDS[kind].targets.filter((t) => targets.includes(t));
}
