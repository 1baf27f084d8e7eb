/**
 * A legacy (2024-11-05 HTTP+SSE) client's session through the gateway (target legacy): GET the upstream's
 * path for the stream, POST to the endpoint its first event names (202 each), read every answer on the
 * stream, close the stream to end the session. A vanishing client closes its stream while its faulted
 * request is being answered; a slow reader reads the whole stream slowly.
 */
import { Agent } from 'node:http';
import { exchange, type Exchange } from './client.js';
import { TARGETS } from './harness.js';
import type { PostPlan, SessionPlan } from './plan.js';
import { INITIALIZED, initializeRequest, isReply, type SessionRecord } from './record.js';
import { ANSWER_DEADLINE_MS, answerDeadline, BEHIND_MS, deadlineFor, delay, faultOptions, type RunOptions } from './session-streamable.js';

/** A legacy stream lives as long as its session: a bound for the whole of one. */
const STREAM_DEADLINE_MS = 60_000;

/** One open legacy stream, with a way to wait for what arrives on it. */
class LegacyStream {
  readonly ex: Exchange;
  /** The client's keep-alive agent (its POSTs go on it too). */
  readonly agent: Agent;
  endpoint: string | undefined;
  readonly #waiters = new Set<() => void>();
  /** Replies counted by id, and how many of the stream's messages have been counted (a flood's thousand ids are looked up on every event). */
  readonly #replies = new Map<unknown, number>();
  #counted = 0;

  constructor(agent: Agent, url: string, slowRead: PostPlan['client']) {
    this.agent = agent;
    const slow = slowRead?.kind === 'slow-read' ? { slowRead: { pauseMs: slowRead.pauseMs, gapMs: slowRead.gapMs } } : {};
    this.ex = exchange({
      agent,
      method: 'GET',
      url,
      headers: { accept: 'text/event-stream' },
      deadlineMs: STREAM_DEADLINE_MS,
      ...slow,
      onEvent: (event) => {
        if (event.event === 'endpoint' && this.endpoint === undefined) this.endpoint = event.data;
        for (const wake of this.#waiters) wake();
      },
    });
    void this.ex.done.then(() => {
      for (const wake of this.#waiters) wake();
    });
  }

  get open(): boolean {
    return this.ex.ending === undefined;
  }

  /** Resolves once `test` holds, the stream ended, or `ms` passed (whichever first). */
  until(test: () => boolean, ms: number): Promise<void> {
    if (test() || !this.open) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        if (!test() && this.open && !expired) return;
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      let expired = false;
      const timer = setTimeout(() => ((expired = true), done()), ms);
      this.#waiters.add(done);
    });
  }

  /** How many replies to `id` arrived. */
  replies(id: string | number): number {
    const messages = this.ex.messages;
    for (; this.#counted < messages.length; this.#counted++) {
      const m = messages[this.#counted]!;
      if (isReply(m)) this.#replies.set(m.id, (this.#replies.get(m.id) ?? 0) + 1);
    }
    return this.#replies.get(id) ?? 0;
  }
}

async function post(origin: string, stream: LegacyStream, body: Buffer, post?: PostPlan): Promise<Exchange> {
  // A vanish and a slow read are the stream's, not the POST's.
  const { vanish: _vanish, slowRead: _slowRead, ...options } = post ? faultOptions(post) : {};
  const ex = exchange({ agent: stream.agent, method: 'POST', url: `${origin}${stream.endpoint!}`, headers: { 'content-type': 'application/json' }, body, deadlineMs: post ? answerDeadline(post) : ANSWER_DEADLINE_MS, ...options });
  await ex.done;
  return ex;
}

/** Open a stream and initialize on it; undefined when there is no session to use. */
async function open(agent: Agent, origin: string, plan: SessionPlan, record: SessionRecord, label: string, slow?: PostPlan['client']): Promise<LegacyStream | undefined> {
  const tagged = !label.startsWith('burst');
  const stream = new LegacyStream(agent, `${origin}${TARGETS.legacy.path}`, slow);
  record.exchanges.push({ label: `${label} stream`, ids: [], exchange: stream.ex, left: true });
  await stream.until(() => stream.endpoint !== undefined, ANSWER_DEADLINE_MS);
  const faulted = tagged && plan.initDelayMs !== undefined;
  if (stream.endpoint === undefined) {
    const detail = `no endpoint event (status ${String(stream.ex.status ?? '-')}, ${stream.ex.ending ?? 'open'}): ${stream.ex.text().slice(0, 300)}`;
    record.openings.push({ label, ok: false, detail, faulted });
    record.notes.push(`${label}: ${detail}`);
    stream.ex.close();
    return undefined;
  }
  const init = await post(origin, stream, Buffer.from(JSON.stringify(initializeRequest(plan, tagged))));
  await stream.until(() => stream.replies(0) > 0, ANSWER_DEADLINE_MS);
  const reply = stream.ex.messages.find((m) => isReply(m) && m.id === 0);
  record.openings.push({ label, ok: reply?.result !== undefined, detail: `initialize: POST status ${String(init.status ?? '-')}, answer ${JSON.stringify(reply ?? null).slice(0, 300)}`, faulted });
  record.exchanges.push({ label: `${label} initialize`, ids: [0], exchange: init, answersOn: stream.ex, gaveUp: stream.open && stream.replies(0) === 0 });
  record.exchanges.push({ label: `${label} initialized`, ids: [], exchange: await post(origin, stream, INITIALIZED) });
  return stream;
}

/** `run.afterBurst` runs once a burst's sessions were all opened (or refused), before anything else. */
export async function runLegacy(origin: string, plan: SessionPlan, run: RunOptions = {}): Promise<SessionRecord> {
  const record: SessionRecord = { plan, exchanges: [], openings: [], notes: [] };
  // One client: its connections are kept between exchanges, and all closed when the session is over.
  const agent = new Agent({ keepAlive: true });
  try {
    const slow = plan.posts.find((p) => p.client?.kind === 'slow-read')?.client;
    const own = (): Promise<LegacyStream | undefined> => open(agent, origin, plan, record, 'session', slow);
    // slow-initialize: the session's own initialize (answered late) goes first, the burst right behind it.
    const first = plan.initDelayMs === undefined ? undefined : own();
    if (first) await delay(BEHIND_MS);
    const burst = await Promise.all(Array.from({ length: plan.burst }, (_, i) => open(agent, origin, plan, record, `burst ${i}`)));
    if (plan.burst > 0) await run.afterBurst?.();
    const stream = await (first ?? own());
    if (stream) await exchanges(origin, stream, plan, record);
    for (const s of burst) s?.ex.close();
    return record;
  } finally {
    agent.destroy();
  }
}

/** The planned POSTs on an open stream; their answers awaited on it; then the stream closed. */
async function exchanges(origin: string, stream: LegacyStream, plan: SessionPlan, record: SessionRecord): Promise<void> {
  const expected = new Map<string | number, number>();
  const send = async (p: PostPlan, n: number): Promise<void> => {
    if (!stream.open) return;
    for (const m of p.messages) expected.set(m.id, (expected.get(m.id) ?? 0) + 1);
    const vanish = p.client?.kind === 'vanish' ? p.client : undefined;
    const ex = post(origin, stream, Buffer.from(JSON.stringify(p.messages.length === 1 ? p.messages[0] : p.messages)), p);
    if (vanish) {
      // Leave while this request is answered: at once, or at the first event that concerns it.
      const ids = new Set<unknown>(p.messages.map((m) => m.id));
      const tokens = new Set<unknown>(p.messages.map((m) => (m.params._meta as { progressToken?: unknown }).progressToken));
      const concerns = (): boolean => stream.ex.messages.some((m) => (isReply(m) && ids.has(m.id)) || tokens.has((m.params as { progressToken?: unknown } | undefined)?.progressToken));
      if (vanish.at === 'first-event') await stream.until(concerns, ANSWER_DEADLINE_MS);
      stream.ex.close();
    }
    const done = await ex;
    // Refused (the status says so): its answers will not come on the stream.
    if (done.status === undefined || done.status >= 300) for (const m of p.messages) expected.set(m.id, (expected.get(m.id) ?? 1) - 1);
    record.exchanges.push({ label: `post ${n}`, ids: p.messages.map((m) => m.id), exchange: done, answersOn: stream.ex, plan: p, ...(vanish && { left: true }) });
  };
  if (plan.parallel) await Promise.all(plan.posts.map(send));
  else for (const [n, p] of plan.posts.entries()) await send(p, n);
  const owed = [...expected.values()].reduce((a, b) => a + b, 0);
  await stream.until(() => [...expected].every(([id, n]) => stream.replies(id) >= n), deadlineFor(owed));
  // The client closed its stream on purpose (a vanish): nothing that was still owed counts.
  const left = stream.ex.ending === 'vanished';
  for (const r of record.exchanges) {
    if (r.answersOn !== stream.ex || r.label.startsWith('burst')) continue;
    if (left) r.left = true;
    else if (stream.open && r.ids.some((id) => stream.replies(id) < (expected.get(id) ?? 1))) r.gaveUp = true;
  }
  stream.ex.close();
}
