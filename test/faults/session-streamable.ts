/**
 * A Streamable HTTP client's session through the gateway (targets http, stdio, shared, sse, modern): initialize,
 * notifications/initialized, maybe its GET stream, the planned POSTs (one after the other or together, each
 * with its client fault), then DELETE. An init-burst opens its extra sessions at once first (a
 * slow-initialize, right behind its own) and ends them last. A `foreign` session is made directly with the
 * proxied upstream, as another replica would have. A client that vanished comes back to DELETE its session
 * (the plan may say it never does: then the gateway's idle timeout must clean up — never on the proxied
 * target, whose sessions belong to the upstream, nor in front of the 2026-07-28-only upstream). The modern
 * target's client is an older one (2024-11-05 … 2025-11-25) whose session the gateway holds.
 */
import { Agent } from 'node:http';
import { exchange, type ExchangeOptions } from './client.js';
import { parseJsonMessages, type SseEvent } from './sse-parse.js';
import { directiveOf } from './directive.js';
import { TARGETS } from './harness.js';
import type { PostPlan, SessionPlan } from './plan.js';
import { INITIALIZED, initializeRequest, postHeaders, type ExchangeRecord, type SessionRecord } from './record.js';

/** How long a client waits for an answer: twice the gateway's upstream timeout (3 s), by when it owes one. */
export const ANSWER_DEADLINE_MS = 6_000;
/**
 * What a POST carrying more than one request may take on top, per request: a flood of a thousand is a
 * thousand round trips through an upstream on a machine of two cores shared by clients, upstreams and the
 * gateway (measured: up to 10 s for six floods at once). One request is still bound by ANSWER_DEADLINE_MS.
 */
const PER_REQUEST_MS = 10;

/** How long answers to `requests` requests sent at once may take: ANSWER_DEADLINE_MS, PER_REQUEST_MS more for each past the first. */
export function deadlineFor(requests: number): number {
  return ANSWER_DEADLINE_MS + PER_REQUEST_MS * Math.max(0, requests - 1);
}

/**
 * Passing a message that never ends may take this long per MiB on top (the upstream stops it at its cap, up
 * to 32 MiB after an answer; on two busy cores that took over 6 s once in 20,000 sessions).
 */
const PER_MIB_MS = 250;

/** The deadline of a POST, by the requests it carries and the bytes of an endless message it asks for. */
export function answerDeadline(post: PostPlan): number {
  const endless = post.messages.reduce((n, m) => {
    const fault = directiveOf(m as unknown as Record<string, unknown>)?.fault;
    return fault?.kind === 'endless' && fault.where === 'after' ? Math.max(n, fault.capBytes) : n;
  }, 0);
  return deadlineFor(post.messages.length) + Math.ceil((PER_MIB_MS * endless) / 2 ** 20);
}
/** How long a client whose body stalled waits for the gateway to give up on it (FAULT_BODY_DEADLINE_MS). */
export const STALLED_BODY_DEADLINE_MS = Number(process.env.FAULT_BODY_DEADLINE_MS ?? 10_000);
/** A GET stream lives as long as its session: a bound for the whole of one. */
const LISTEN_DEADLINE_MS = 60_000;
/** How far behind a slow initialize its burst comes (the fault's own, explicit delay: the order matters). */
export const BEHIND_MS = 50;

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The exchange options a POST's client fault asks for. */
export function faultOptions(post: PostPlan): Partial<ExchangeOptions> {
  const f = post.client;
  switch (f?.kind) {
    case 'slowloris':
      return { trickle: { chunk: f.chunk, gapMs: f.gapMs, ...(f.stallAfter !== undefined && { stallAfter: f.stallAfter }) }, ...(f.stallAfter !== undefined && { deadlineMs: STALLED_BODY_DEADLINE_MS }) };
    case 'slow-read':
      return { slowRead: { pauseMs: f.pauseMs, gapMs: f.gapMs } };
    case 'vanish':
      return { vanish: { at: f.at } };
    case 'stop-reading-vanish':
      return { slowRead: { pauseMs: f.ms * 10, gapMs: 0 }, vanish: { at: 'time', ms: f.ms } };
    case 'expect-continue':
      return { expectContinue: true };
    default:
      return {};
  }
}

function bodyOf(post: PostPlan): Buffer {
  return Buffer.from(JSON.stringify(post.messages.length === 1 ? post.messages[0] : post.messages));
}

/**
 * In share mode one child serves every session, so one that hangs its first initialize fails the initializes
 * waiting on it, whoever asked (the gateway answers each at once and starts a new child). That is the
 * fault's, not the gateway's, as long as the next initialize opens a session: a slow-initialize session checks
 * that (its `recovery initialize`).
 */
const RECOVERY = 'recovery initialize';

function sharedInitCollateral(plan: SessionPlan, reply: { readonly error?: unknown } | undefined): boolean {
  if (plan.target !== 'shared' || reply?.error === undefined) return false;
  const text = JSON.stringify(reply.error);
  return text.includes('RETROFIT_ERR_UPSTREAM_TIMEOUT') || text.includes('failed its first initialize');
}

async function initialize(agent: Agent, url: string, plan: SessionPlan, record: SessionRecord, label: string, tagged: boolean): Promise<string | undefined> {
  const init = exchange({ agent, method: 'POST', url, headers: postHeaders(undefined, undefined), body: Buffer.from(JSON.stringify(initializeRequest(plan, tagged))), deadlineMs: ANSWER_DEADLINE_MS });
  record.exchanges.push({ label, ids: [0], exchange: init });
  await init.done;
  const session = init.headers?.['mcp-session-id'];
  // Open: a session id, and an InitializeResult (a gateway-owned session has its id before the answer comes).
  const answered = init.messages.some((m) => m.id === 0 && m.result !== undefined);
  const opened = typeof session === 'string' && init.status === 200 && answered;
  const reply = init.messages.find((m) => m.id === 0);
  const detail = `status ${String(init.status ?? '-')}, ${init.ending ?? 'open'}: ${reply ? JSON.stringify(reply).slice(0, 300) : JSON.stringify(init.text().slice(0, 300))}`;
  record.openings.push({ label, ok: opened, detail, faulted: (tagged && plan.initDelayMs !== undefined) || (label !== RECOVERY && sharedInitCollateral(plan, reply)) });
  if (!opened) {
    record.notes.push(`${label}: no session (${detail})`);
    // Ended by the client: a session the gateway made for a failed initialize is no use to it.
    if (typeof session === 'string') await remove(agent, url, session, record, `${label} delete`);
    return undefined;
  }
  const ack = exchange({ agent, method: 'POST', url, headers: postHeaders(session, plan.revision), body: INITIALIZED, deadlineMs: ANSWER_DEADLINE_MS });
  record.exchanges.push({ label: `${label} initialized`, ids: [], exchange: ack });
  await ack.done;
  return session;
}

async function remove(agent: Agent, url: string, session: string, record: SessionRecord, label: string): Promise<void> {
  const del = exchange({ agent, method: 'DELETE', url, headers: { 'mcp-session-id': session }, deadlineMs: ANSWER_DEADLINE_MS });
  record.exchanges.push({ label, ids: [], exchange: del });
  await del.done;
}

/** How a session runs beyond its plan. */
export interface RunOptions {
  /** Runs once a burst's initializes were all answered, before anything else (a look from inside). */
  readonly afterBurst?: () => Promise<void>;
  /** The upstream's own URL, where a `foreign` plan's session is made. */
  readonly direct?: string;
}

/**
 * Slow-initialize sessions on the shared child run one at a time. Run side by side, one's hung initialize can
 * be the first initialize of the child another's recovery initialize waits on, and that recovery then fails
 * with the other's timeout (seen once in a 20,000-session run, 2026-12-03: seed 603586997 passes alone) —
 * the other session's fault, not a wedged gateway, which a recovery that runs alone still proves.
 */
let sharedSlowInit: Promise<unknown> = Promise.resolve();

export function runStreamable(origin: string, plan: SessionPlan, run: RunOptions = {}): Promise<SessionRecord> {
  if (plan.target !== 'shared' || plan.initDelayMs === undefined) return runSession(origin, plan, run);
  const next = sharedSlowInit.then(() => runSession(origin, plan, run));
  sharedSlowInit = next.catch(() => undefined);
  return next;
}

async function runSession(origin: string, plan: SessionPlan, run: RunOptions): Promise<SessionRecord> {
  const url = `${origin}${TARGETS[plan.target].path}`;
  const record: SessionRecord = { plan, exchanges: [], openings: [], notes: [] };
  // One client: its connections are kept between exchanges, and all closed when the session is over.
  const agent = new Agent({ keepAlive: true });
  try {
    const own = (): Promise<string | undefined> => initialize(agent, plan.foreign && run.direct ? run.direct : url, plan, record, 'initialize', true);
    // slow-initialize: the session's own initialize (answered late) goes first, the burst right behind it.
    const first = plan.initDelayMs === undefined ? undefined : own();
    if (first) await delay(BEHIND_MS);
    const burst = await Promise.all(Array.from({ length: plan.burst }, (_, i) => initialize(agent, url, plan, record, `burst initialize ${i}`, false)));
    if (plan.burst > 0) await run.afterBurst?.();
    const session = await (first ?? own());
    if (session !== undefined) await exchanges(agent, url, session, plan, record);
    await Promise.all(burst.map((s, i) => (s === undefined ? undefined : remove(agent, url, s, record, `burst delete ${i}`))));
    // After a hung first initialize in share mode: the gateway is not wedged, a new session opens (untagged:
    // the upstream answers it at once).
    if (plan.target === 'shared' && plan.initDelayMs !== undefined) {
      const recovery = await initialize(agent, url, plan, record, RECOVERY, false);
      if (recovery !== undefined) await remove(agent, url, recovery, record, 'recovery delete');
    }
    return record;
  } finally {
    agent.destroy();
  }
}

/**
 * Answers the requests the gateway sends the client on a stream (an older client of the 2026-07-28-only
 * upstream: its `input_required` results become requests on the session): roots/list with no roots, anything
 * else with an empty result. Each answer is a POST of its own (202), recorded with the session's exchanges.
 */
function answerer(agent: Agent, url: string, session: string, plan: SessionPlan, record: SessionRecord): (event: SseEvent) => void {
  return (event) => {
    for (const m of event.data === undefined ? [] : parseJsonMessages(event.data)) {
      if (typeof m.method !== 'string' || (typeof m.id !== 'string' && typeof m.id !== 'number')) continue;
      const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: m.method === 'roots/list' ? { roots: [] } : {} }));
      const ex = exchange({ agent, method: 'POST', url, headers: postHeaders(session, plan.revision), body, deadlineMs: ANSWER_DEADLINE_MS });
      record.exchanges.push({ label: `answer to ${m.method} ${String(m.id)}`, ids: [], exchange: ex });
    }
  };
}

/** The planned POSTs of an open session (its GET stream open meanwhile, if it listens), then its DELETE (unless the client vanished for good). */
async function exchanges(agent: Agent, url: string, session: string, plan: SessionPlan, record: SessionRecord): Promise<void> {
  record.sessionId = session;
  let comesBack = true;
  // Its own stream: read and let go (an upstream's endless message may come on it), closed by the client at the end.
  const onEvent = answerer(agent, url, session, plan, record);
  const listen = plan.listen ? exchange({ agent, method: 'GET', url, headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': plan.revision }, deadlineMs: LISTEN_DEADLINE_MS, discard: true, onEvent }) : undefined;
  if (listen) record.exchanges.push({ label: 'listen', ids: [], exchange: listen });
  // Open before anything is asked: what the upstream puts on it must find it there.
  await listen?.responded;
  const send = async (post: PostPlan, n: number): Promise<void> => {
    const ex = exchange({ agent, method: 'POST', url, headers: postHeaders(session, plan.revision), body: bodyOf(post), deadlineMs: answerDeadline(post), onEvent, ...faultOptions(post) });
    const left = post.client?.kind === 'vanish' || post.client?.kind === 'stop-reading-vanish';
    // Never on the proxied target (its sessions are the upstream's), nor on the 2026-07-28-only upstream's, which
    // the gateway holds for 15 minutes idle (not configurable for a url upstream): longer than a chunk waits.
    if (post.client?.kind === 'vanish' && !post.client.returns && plan.target !== 'http' && plan.target !== 'modern') comesBack = false;
    const entry: ExchangeRecord = { label: `post ${n}`, ids: post.messages.map((m) => m.id), exchange: ex, plan: post, ...(left && { left }) };
    record.exchanges.push(entry);
    await ex.done;
  };
  if (plan.parallel) await Promise.all(plan.posts.map(send));
  else for (const [n, post] of plan.posts.entries()) await send(post, n);
  listen?.close();
  if (comesBack) await remove(agent, url, session, record, 'delete');
  else record.notes.push('the client vanished for good: the idle timeout ends its session');
}
