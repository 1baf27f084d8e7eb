/**
 * The invariants, as checks over what a session recorded (./record.ts), what the upstream recorded
 * (./steps.ts) and what the gateway counts from inside (its debug endpoint):
 * - one-answer: every request got exactly one answer, or the stream it was owed on ended after carrying
 *   something (an empty reply — headers, then nothing — is not an ended stream: the client cannot tell it
 *   from an answer still to come); every HTTP exchange got a response. A 2026-07-28 request is its own
 *   exchange, so the same rule holds for it; one whose client closed the stream cancelled it (owed nothing);
 * - differential: what the client did not opt into changing reached it exactly as the upstream sent it
 *   (./differential.ts);
 * - leak: nothing outlives its session (sessions, pending requests, streams, exchanges, children, timers,
 *   handles, listeners, metric series named by a client);
 * - alive, session-cap (./checks.ts), rss and peak-rss (./runner.ts) are checked elsewhere.
 */
import type { Exchange, Message } from './client.js';
import type { DebugSnapshot } from './gateway.js';
import { TARGETS } from './harness.js';
import { isReply, wholePostError, type ExchangeRecord, type SessionRecord } from './record.js';
import type { Written } from './steps.js';

/**
 * The issue's five — alive, one-answer, leak, rss, differential — and two more the suite checks: peak-rss
 * (memory stays bounded while faults run: no message is held whole whatever its size) and session-cap
 * (maxSessions holds for every way of opening a session).
 */
export type Invariant = 'alive' | 'one-answer' | 'differential' | 'leak' | 'rss' | 'peak-rss' | 'session-cap';

export interface Violation {
  readonly invariant: Invariant;
  readonly detail: string;
}

const describe = (ex: Exchange): string => `status ${String(ex.status ?? '-')}, ${ex.sse ? 'SSE' : 'body'} ${ex.ending ?? 'open'}${ex.error ? ` (${ex.error})` : ''}`;

/** Answers the upstream itself sent for `id` (a proxy may pass on what it was given, duplicates included). */
function upstreamAnswers(upstream: ReadonlyMap<string, Written>, id: string | number): number {
  return upstream.get(JSON.stringify(id))?.answers ?? 0;
}

/**
 * Legacy: every answer of a session shares its stream, so a request id sent on two POSTs is owed two answers
 * there — counted over the session's POSTs that were taken (not refused, not left).
 */
function streamDebts(record: SessionRecord): Map<Exchange, Map<unknown, number>> {
  const out = new Map<Exchange, Map<unknown, number>>();
  for (const r of record.exchanges) {
    if (!r.answersOn || r.left || r.exchange.status === undefined || r.exchange.status >= 300) continue;
    const debts = out.get(r.answersOn) ?? out.set(r.answersOn, new Map()).get(r.answersOn)!;
    for (const id of r.ids) debts.set(id, (debts.get(id) ?? 0) + 1);
  }
  return out;
}

function checkExchange(r: ExchangeRecord, proxied: boolean, upstream: ReadonlyMap<string, Written>, debts: ReadonlyMap<unknown, number> | undefined): Violation[] {
  const ex = r.exchange;
  if (r.left) return [];
  const out: Violation[] = [];
  const fail = (detail: string): void => void out.push({ invariant: 'one-answer', detail: `${r.label}: ${detail}` });
  if (ex.ending === 'no-response') fail(`the connection closed without any HTTP response (${describe(ex)})`);
  if (ex.ending === 'hung') fail(`no response end within the client's deadline (${describe(ex)})`);
  // A JSON-RPC error for the whole POST answers each of its requests; so does a legacy POST's refusal (the
  // transport's own answer: the client learns from the status that its message was not taken).
  const whole = wholePostError(ex) !== undefined || (r.answersOn !== undefined && ex.status !== undefined && ex.status >= 300);
  // Requests that failed the same way are told in one line (a batch may hold a thousand).
  const byReason = new Map<string, (string | number)[]>();
  const note = (reason: string, id: string | number): void => void (byReason.get(reason) ?? byReason.set(reason, []).get(reason)!).push(id);
  const sentOf = new Map<string | number, number>();
  for (const id of r.ids) sentOf.set(id, (sentOf.get(id) ?? 0) + 1);
  const replies = new Map<unknown, Message[]>();
  // A legacy POST that was refused has its answer in its own body: what its stream carries for the same id
  // answers another POST (a refused duplicate id owes nothing on the stream).
  const onStream = r.answersOn !== undefined && !whole ? r.answersOn.messages : [];
  for (const m of [...ex.messages, ...onStream]) if (isReply(m)) (replies.get(m.id) ?? replies.set(m.id, []).get(m.id)!).push(m);
  for (const [id, here] of sentOf) {
    // On a legacy stream, this id's debt over the whole session (a duplicated id is owed twice).
    const sent = Math.max(here, debts?.get(id) ?? 0);
    const own = replies.get(id)?.length ?? 0;
    const got = own === 0 && whole ? sent : own;
    const allowed = Math.max(sent, proxied ? upstreamAnswers(upstream, id) : 0);
    if (got > allowed) note(`more answers than requests (${got} for ${sent} sent${allowed > sent ? `, the upstream sent ${allowed}` : ''}; ${describe(ex)}): ${JSON.stringify(replies.get(id) ?? []).slice(0, 400)}`, id);
    if (got >= sent) continue;
    if (r.answersOn) {
      // Legacy: answers are owed on the stream; fine when the gateway ended it, not when the client gave up on it open.
      if (r.gaveUp) note('no answer, and the stream it is owed on still open at the client\'s deadline', id);
      continue;
    }
    if (ex.ending === 'hung' || ex.ending === 'no-response') continue; // already said
    // Its stream ended: fine once something of it came (the answer was lost with the connection), not when
    // the response was empty — headers, then nothing: a client cannot tell that from an answer still to come.
    if ((ex.ending === 'cut' || (ex.sse && ex.ending === 'complete')) && ex.received > 0) continue;
    if (ex.received === 0 && (ex.ending === 'cut' || ex.ending === 'complete')) {
      note(`no answer: an empty reply (${describe(ex)}, not one byte of body)`, id);
      continue;
    }
    note(`no answer in a complete response (${describe(ex)}): ${JSON.stringify(ex.text().slice(0, 200))}`, id);
  }
  for (const [reason, ids] of byReason) {
    const shown = ids.slice(0, 5).map((id) => JSON.stringify(id)).join(', ');
    fail(`${ids.length === 1 ? `request ${shown}` : `${ids.length} requests (${shown}${ids.length > 5 ? ', …' : ''})`}: ${reason}`);
  }
  return out;
}

/** one-answer, for every exchange of a session. */
export function checkAnswers(record: SessionRecord, upstream: ReadonlyMap<string, Written>): Violation[] {
  const debts = streamDebts(record);
  return record.exchanges.flatMap((r) => checkExchange(r, TARGETS[record.plan.target].proxied, upstream, r.answersOn && debts.get(r.answersOn)));
}

/** Counts that must be back at their baseline once nothing runs (exactly). */
function strictCounts(s: DebugSnapshot): Map<string, number> {
  const out = new Map<string, number>([
    ['inflight', s.inflight],
    ['proxiedSessions', s.proxiedSessions],
    ['proxiedPending', s.proxiedPending],
    ['listeners.process', s.listeners.process],
    ['listeners.server', s.listeners.server],
    ['resources.ProcessWrap', s.resources.ProcessWrap ?? 0],
    ['resources.PipeWrap', s.resources.PipeWrap ?? 0],
  ]);
  for (const [name, counts] of Object.entries(s.upstreams)) for (const [what, n] of Object.entries(counts)) out.set(`${name}.${what}`, n);
  return out;
}

/**
 * Counts that may move a little with no session open: timers the gateway keeps for itself (a registry's
 * keep-alive ticker starts with its first session) and sockets pooled towards the upstreams.
 */
const SLACK = new Map([
  ['timers', 3],
  ['resources.TCPSocketWrap', 8],
  ['resources.Timeout', 2],
]);

/** One-shot timers no longer than `requestTimerMs`: per-request deadlines and the like, which fire on their own soon. */
function requestTimers(s: DebugSnapshot, requestTimerMs: number): number {
  let n = 0;
  for (const [delay, count] of Object.entries(s.timersByDelay)) if (!delay.startsWith('every') && Number.parseInt(delay, 10) <= requestTimerMs) n += count;
  return n;
}

/**
 * What differs from the baseline, beyond the slack; empty when nothing outlived its session. Per-request
 * timers (one-shot, at most `requestTimerMs`) are not counted: they end by themselves within that time.
 */
export function leaks(now: DebugSnapshot, baseline: DebugSnapshot, requestTimerMs: number): string[] {
  const out: string[] = [];
  const base = strictCounts(baseline);
  for (const [key, n] of strictCounts(now)) if (n > (base.get(key) ?? 0)) out.push(`${key} ${n} (baseline ${base.get(key) ?? 0})`);
  const loose = (s: DebugSnapshot): Map<string, number> =>
    new Map([
      ['timers', s.timers - requestTimers(s, requestTimerMs)],
      ['resources.TCPSocketWrap', s.resources.TCPSocketWrap ?? 0],
      ['resources.Timeout', s.resources.Timeout ?? 0],
    ]);
  const lb = loose(baseline);
  for (const [key, n] of loose(now)) if (n > (lb.get(key) ?? 0) + (SLACK.get(key) ?? 0)) out.push(`${key} ${n} (baseline ${lb.get(key) ?? 0}, slack ${SLACK.get(key) ?? 0})`);
  return out;
}

/**
 * What still holds a session, a child or a request (any upstream count, exchanges, proxied sessions, children,
 * one-shot timers no longer than `requestTimerMs` — the per-request ones, which fire soon): empty once idle.
 */
export function busy(s: DebugSnapshot, requestTimerMs: number): string[] {
  const out: string[] = [];
  const short = requestTimers(s, requestTimerMs);
  if (short > 0) out.push(`${short} request timers`);
  if (s.inflight > 0) out.push(`inflight ${s.inflight}`);
  if (s.proxiedSessions > 0) out.push(`proxiedSessions ${s.proxiedSessions}`);
  if ((s.resources.ProcessWrap ?? 0) > 0) out.push(`resources.ProcessWrap ${s.resources.ProcessWrap ?? 0}`);
  for (const [name, counts] of Object.entries(s.upstreams)) for (const [what, n] of Object.entries(counts)) if (n > 0) out.push(`${name}.${what} ${n}`);
  return out;
}

/** Method names a client made up that the gateway still shows in /metrics after the session. */
export function madeUpInMetrics(metricsText: string, madeUp: readonly string[]): string[] {
  return madeUp.filter((m) => metricsText.includes(m));
}
