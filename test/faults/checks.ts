/**
 * One session against the gateway as it is now, and the invariants checked right after it: one-answer and
 * differential (./invariants.ts, ./differential.ts); the gateway alive, answering /healthz and opening the
 * sessions asked of it; no method name it made up still in /metrics; for a burst past maxSessions, the
 * gateway never holding more sessions than it allows; and, in front of the 2026-07-28-only upstream, no
 * exchange of the session still open there once it ended (a client's closed stream cancels its request
 * upstream: the revision's cancellation).
 */
import { getText } from './gateway.js';
import { SESSION_CAP, TARGETS, type Target, type World } from './harness.js';
import { checkAnswers, madeUpInMetrics, type Violation } from './invariants.js';
import { checkDifferential } from './differential.js';
import type { SessionPlan } from './plan.js';
import type { SessionRecord } from './record.js';
import { runLegacy } from './session-legacy.js';
import { runStateless } from './session-stateless.js';
import { runStreamable, type RunOptions } from './session-streamable.js';

/** How long the 2026-07-28 upstream's exchanges of an ended session may take to close (an endless message holds up to 1.2 s). */
const UPSTREAM_SETTLE_MS = 5_000;

export interface SessionOutcome {
  readonly target: Target;
  readonly violations: Violation[];
  /** What the session noted on the way (context for a failure). */
  readonly notes: readonly string[];
}

/** Run a plan's session with the kind of client its target has. */
function runSession(origin: string, plan: SessionPlan, run: RunOptions): Promise<SessionRecord> {
  switch (TARGETS[plan.target].client) {
    case 'legacy':
      return runLegacy(origin, plan, run);
    case 'stateless':
      return runStateless(origin, plan);
    default:
      return runStreamable(origin, plan, run);
  }
}

/** Run a plan on the current gateway (no checks): the warm-up's and a replay's way. */
export async function runPlan(world: World, plan: SessionPlan): Promise<void> {
  await runSession(world.gateway().origin, plan, { direct: world.httpUpstream });
  world.recorder.take(plan.tag);
}

export async function runAndCheck(world: World, plan: SessionPlan): Promise<SessionOutcome> {
  const gw = world.gateway();
  // session-cap: what the gateway holds once the burst was answered (sessions and legacy streams of the upstream).
  let held: { sessions: number; legacy: number } | undefined;
  const probe = plan.kind === 'session-cap' ? async () => {
    const counts = (await gw.debug()).upstreams[TARGETS[plan.target].upstream] ?? {};
    held = { sessions: counts.sessions ?? 0, legacy: counts.legacyConnections ?? 0 };
  } : undefined;
  const run = { ...(probe && { afterBurst: probe }), direct: world.httpUpstream };
  const record = await runSession(gw.origin, plan, run);
  // What the session left open upstream closes at once; what a never-ending message holds, within its hold.
  const leftOpen = TARGETS[plan.target].upstream === 'modern' ? await world.modernUpstream.settled(plan.tag, UPSTREAM_SETTLE_MS) : 0;
  const upstream = world.recorder.take(plan.tag);
  const violations = [...checkAnswers(record, upstream), ...checkDifferential(record, upstream)];
  if (leftOpen > 0) violations.push({ invariant: 'leak', detail: `the 2026-07-28 upstream still had ${leftOpen} exchange(s) of this session open ${UPSTREAM_SETTLE_MS} ms after it ended: a closed response stream (or an ended session) must close them` });
  if (held !== undefined && held.sessions + held.legacy > SESSION_CAP) {
    const detail = `the gateway held ${held.sessions} Streamable HTTP sessions and ${held.legacy} legacy streams of upstream "${TARGETS[plan.target].upstream}" at once (maxSessions ${SESSION_CAP}; other sessions running at the time count too)`;
    violations.push({ invariant: 'session-cap', detail });
  }
  if (!gw.alive()) {
    const last = gw.tail().trim().split('\n').slice(-8).join('\n');
    violations.push({ invariant: 'alive', detail: `the gateway exited (${await gw.exited}) while this session ran; its last output:\n${last}` });
    return { target: plan.target, violations, notes: record.notes };
  }
  if (!(await gw.healthy())) violations.push({ invariant: 'alive', detail: '/healthz did not answer 200' });
  // Alive is serving: every session a client opens without a fault of its own is opened (or refused for maxSessions).
  for (const o of record.openings) {
    if (o.ok || o.faulted || o.detail.includes('RETROFIT_ERR_TOO_MANY_SESSIONS')) continue;
    violations.push({ invariant: 'alive', detail: `${o.label}: the gateway did not open a session (${o.detail})` });
  }
  if (plan.madeUp.length > 0) {
    const kept = madeUpInMetrics((await getText(`${gw.origin}/metrics`, 10_000)).text, plan.madeUp);
    if (kept.length > 0) violations.push({ invariant: 'leak', detail: `/metrics still names the methods this client made up after its session ended: ${kept.join(', ')}` });
  }
  return { target: plan.target, violations, notes: record.notes };
}
