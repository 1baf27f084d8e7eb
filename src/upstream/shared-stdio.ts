/**
 * Share mode (`share: true` on a `command:` upstream): ONE child serves every client session of the upstream,
 * for servers that keep no per-client state — a child costs ~57–145 MB and 0.15–0.8 s per session. Each
 * session gets a virtual link (attach()); the child is spawned when a session attaches and none runs, and
 * stopped when the last session detaches.
 *
 * Client → child: request ids, `params._meta.progressToken` and the `requestId` of notifications/cancelled
 * become `<session#>~<JSON of the original>` (./shared-ids.ts); anything else goes as sent, its text kept.
 * The child is initialized once, by the first session's initialize; its InitializeResult is cached and later
 * sessions are answered from it (one arriving while the first is in flight waits for it). Only the first
 * notifications/initialized reaches the child. A child that fails that first initialize — no answer within
 * timeoutMs, an error or invalid answer, one dropped (size, depth), the asking session leaving — is
 * restarted: every session waiting for it gets an error, its sessions end (their clients initialize again),
 * and the next session gets a fresh child. Initialize is never cancelled at the child.
 *
 * Child → client: an answer goes to the session that asked, its id restored; progress to the session of its
 * token; a server→client request (sampling, elicitation, roots/list) to the session of its `_meta`
 * progress token, else the only session with a request in flight, else the only session attached — with
 * the child's id kept, so the client's answer reaches the child as it is. `ping` is answered here. Other
 * notifications (list_changed, resources/updated, log messages) go to every session.
 *
 * Limits (what one child cannot tell apart):
 * - a server→client request no single session can be chosen for gets a -32603 error and a warning;
 * - the child sees the first session's clientInfo, capabilities and protocolVersion only: later sessions get
 *   the cached InitializeResult (each negotiated, and bridged, on its own);
 * - what the child keeps is shared: logging/setLevel, resources/subscribe (every session gets every
 *   resources/updated), tasks (a session may read another's by its id), anything a tool remembers;
 * - backpressure is not shared: a session whose client is backed up does not pause the child (that would stall
 *   every session); what the child says for it is held in order, and past `maxHeldBytes` held that session
 *   alone is ended (logged, counted), so a client that stops reading costs a bounded buffer and its own session.
 *   What all the child's sessions hold together is bounded too (HELD_SESSIONS × maxHeldBytes): past it the
 *   session holding the most is ended, so many clients that stop reading cannot hold a broadcast many times over;
 * - the child dying ends every session at once (each gets the child's cause, stderr included);
 * - a line past OFFLOAD_BYTES is never decoded on the event loop: an answer goes to its session as bytes, as a
 *   dedicated child's does; anything else is sorted out on a worker first (held in order, the child paused),
 *   only the child's first initialize's answer is parsed here.
 */
import { RetrofitError } from '../errors.js';
import type { Logger } from '../log.js';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';
import { demuxLine, type Demuxed } from '../pipeline/offload/demux.js';
import type { LinkClosed, LinkDropped, SendOutcome, UpstreamLink } from './link.js';
import { SharedIds, type InitWaiter, type Route } from './shared-ids.js';
import { SessionLink } from './shared-session-link.js';

/** Makes the one child's link (the routes module's StdioLink, with its accounting); `log` is the upstream's. */
export type SpawnLink = (log: Logger) => UpstreamLink;

export interface SharedStdioOptions {
  /** The upstream's name, for errors. */
  readonly upstream: string;
  /** The upstream's logger (not a session's): the child's own lines and share-mode warnings go there. */
  readonly log: Logger;
  /**
   * Sort out a long line that is not an answer on a worker (src/pipeline/rewrite.ts Rewriter.demux); undefined:
   * no worker can take it, and it is sorted out here.
   */
  readonly demux?: (data: Buffer) => Promise<Demuxed<Buffer>> | undefined;
  /**
   * What one session may have held for it while its client is backed up (limits.maxResultBytes): past it, the
   * session is ended, and `oncutoff` told (the metric).
   */
  readonly maxHeldBytes: number;
  readonly oncutoff?: () => void;
}

const ACCEPTED: SendOutcome = Object.freeze({ ok: true });
/** How many sessions' worth of maxHeldBytes one shared child's backed-up sessions may hold together. */
export const HELD_SESSIONS = 4;
/** The key in SharedChild's paused set of a line on the worker (sessions pause nobody: SessionLink holds instead). */
const SORTING = 0;

/** Something the link said, waiting for a long line on the worker; `data`: the message, when it is one. */
interface Waiting {
  readonly event: () => void;
  readonly data?: string | Buffer;
}

/** The id a message's ends show, as LinkDropped carries it. */
function idOf(data: string | Buffer): { id?: string | number } {
  const id = sniffResponseId(endsOf(data));
  return id === undefined ? {} : { id };
}

/** The shared child of one upstream; after it died or was stopped, the next session to attach spawns another. */
export class SharedStdio {
  readonly #options: SharedStdioOptions;
  #child: SharedChild | undefined;
  #next = 1;

  constructor(options: SharedStdioOptions) {
    this.#options = options;
  }

  /** A virtual link for one new session (`log` bound to it); spawns the child with `spawn` when none runs. */
  attach(log: Logger, spawn: SpawnLink): UpstreamLink {
    this.#child ??= new SharedChild(spawn, this.#options, (gone) => {
      if (this.#child === gone) this.#child = undefined;
    });
    return this.#child.attach(this.#next++, log);
  }

  /** The running child's pid, if any. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }
}

/** One child and the sessions it serves. */
class SharedChild {
  readonly #link: UpstreamLink;
  readonly #upstream: string;
  readonly #log: Logger;
  readonly #gone: (child: SharedChild) => void;
  readonly #ids: SharedIds;
  readonly #sessions = new Map<number, SessionLink>();
  /** What holds the child back (a long line on the worker; never a session): it reads again once nothing does. */
  readonly #paused = new Set<number>();
  readonly #demux: SharedStdioOptions['demux'];
  readonly #maxHeldBytes: number;
  readonly #oncutoff: SharedStdioOptions['oncutoff'];
  /** What the sessions hold for their backed-up clients, together, and the sessions holding any. */
  #heldBytes = 0;
  readonly #holding = new Set<SessionLink>();
  /** What the link said while a long line is on the worker, in order (undefined: none is). */
  #behind: Waiting[] | undefined;
  #closed: LinkClosed | undefined;

  constructor(spawn: SpawnLink, options: SharedStdioOptions, gone: (child: SharedChild) => void) {
    this.#upstream = options.upstream;
    this.#log = options.log;
    this.#gone = gone;
    this.#demux = options.demux;
    this.#maxHeldBytes = options.maxHeldBytes;
    this.#oncutoff = options.oncutoff;
    this.#ids = new SharedIds(options.log);
    this.#link = spawn(options.log);
    // A throw here is caught by the child's link, which reports the message as dropped (`failed`): see below.
    this.#link.onframe = (frame) => this.#inOrder(() => this.#frame(frame.data), frame.data);
    this.#link.ondropped = (dropped) => this.#inOrder(() => this.#dropped(dropped));
    this.#link.onclose = (closed) => this.#inOrder(() => this.#end(closed));
  }

  get pid(): number | undefined {
    return this.#link.pid;
  }

  get alive(): boolean {
    return this.#closed === undefined && this.#link.alive;
  }

  attach(no: number, log: Logger): SessionLink {
    const session = new SessionLink(this, no, log, this.#upstream);
    this.#sessions.set(no, session);
    this.#ids.attach(no);
    return session;
  }

  send(session: SessionLink, json: string): SendOutcome | Promise<SendOutcome> {
    if (!this.#sessions.has(session.no)) return session.refused();
    const out = this.#ids.toChild(session.no, json, session.log);
    // After send() returned: the session registers a request before sending it, and then arms its deadline.
    if (out.replies.length > 0) queueMicrotask(() => this.#deliver(out.replies));
    if (out.json === undefined) return ACCEPTED;
    const sent = this.#link.send(out.json);
    const settle = (outcome: SendOutcome): SendOutcome => {
      if (!outcome.ok) {
        const waiting = this.#ids.unsent(session.no, out.wires);
        if (this.#ids.initFailure !== undefined) this.#initFailed(waiting, outcome.error);
      }
      return outcome;
    };
    return sent instanceof Promise ? sent.then(settle) : settle(sent);
  }

  /**
   * `session` gave up on its request `id`. A lost first initialize fails the child (its waiters get `error`,
   * the asker's own answer); a waiter that gave up on its own just stops waiting.
   */
  abandoned(session: SessionLink, id: string | number, method: string, error: RetrofitError): void {
    if (method !== 'initialize') return;
    if (!this.#ids.initAskedBy(session.no, id)) return this.#ids.forgetInitWaiter(session.no, id);
    this.#initFailed(this.#ids.failInit(error.message), error);
  }

  #deliver(routes: readonly Route[]): void {
    for (const route of routes) {
      if (route.to === 'child') void this.#link.send(route.json);
      else if (route.to === 'all') for (const session of this.#sessions.values()) session.deliver(route.json);
      else this.#sessions.get(route.to)?.deliver(route.json);
    }
  }

  /** After the child's answers or drops: one that failed its first initialize is restarted. */
  #initCheck(): void {
    if (this.#ids.initFailure !== undefined) this.#initFailed([]);
  }

  /**
   * The child failed its first initialize: the sessions still waiting for it get `error` (without one, the
   * child's end tells them), then the child is stopped and its sessions end; the next session gets a new child.
   */
  #initFailed(waiting: readonly InitWaiter[], error?: RetrofitError): void {
    if (this.#closed) return;
    if (error) for (const w of waiting) this.#sessions.get(w.session)?.deliver(JSON.stringify(error.toJsonRpc(w.id)));
    const why = this.#ids.initFailure ?? 'it failed';
    this.#log.warn({ pid: this.#link.pid, why, sessions: this.#sessions.size }, 'share mode: the child failed its first initialize; it is stopped, and the next session starts a new one');
    const closed: LinkClosed = { kind: 'requested', reason: `the shared child failed its first initialize: ${why}; it was stopped` };
    this.#end(closed);
    void this.#link.close();
  }

  pause(no: number): void {
    if (this.#paused.has(no)) return;
    this.#paused.add(no);
    if (this.#paused.size === 1) this.#link.pause();
  }

  resume(no: number): void {
    if (this.#paused.delete(no) && this.#paused.size === 0) this.#link.resume();
  }

  /**
   * `session` holds `delta` bytes more (or fewer) for its backed-up client. Past maxHeldBytes for it, it alone is
   * ended; past HELD_SESSIONS × maxHeldBytes for all the child's sessions together, the one holding the most is.
   */
  held(session: SessionLink, delta: number): void {
    this.#heldBytes += delta;
    if (session.heldBytes > 0) this.#holding.add(session);
    else this.#holding.delete(session);
    if (delta <= 0) return;
    if (session.heldBytes > this.#maxHeldBytes) {
      this.#cutOff(session, `more than ${this.#maxHeldBytes} bytes (limits.maxResultBytes) waited for it`);
      return;
    }
    if (this.#heldBytes <= HELD_SESSIONS * this.#maxHeldBytes) return;
    let most = session;
    for (const s of this.#holding) if (s.heldBytes > most.heldBytes) most = s;
    this.#cutOff(most, `the child's backed-up sessions held more than ${HELD_SESSIONS} × limits.maxResultBytes together, this one the most (${most.heldBytes} bytes)`);
  }

  /** `session`'s client fell too far behind: it alone is ended, what it held dropped. */
  #cutOff(session: SessionLink, why: string): void {
    session.log.warn({ bytes: session.heldBytes, maxHeldBytes: this.#maxHeldBytes, why, pid: this.#link.pid }, "share mode: a backed-up client's session is ended; the others are served on");
    this.#oncutoff?.();
    session.cut(`its client did not read what the shared child said for it: ${why}; the session was ended`);
  }

  /**
   * A session leaves: what it still waits for is cancelled at the child; the last one stops the child. The
   * session that asked for the child's first initialize leaving before its answer fails the child.
   */
  async detach(session: SessionLink): Promise<void> {
    if (!this.#sessions.delete(session.no)) return;
    if (this.#ids.initAskedBy(session.no) && this.#sessions.size > 0) {
      this.#ids.detach(session.no);
      this.#initFailed(this.#ids.failInit('the session that asked for it closed before its answer'));
      return;
    }
    const goodbyes = this.#ids.detach(session.no);
    if (this.#closed === undefined) for (const json of goodbyes) void this.#link.send(json);
    if (this.#sessions.size > 0) return;
    // The next session gets a new child, even while this one is still stopping.
    this.#gone(this);
    await this.#link.close();
  }

  /** Now, or after the long line on the worker (and what the link said before this); `data`: a message's. */
  #inOrder(event: () => void, data?: string | Buffer): void {
    if (this.#behind) this.#behind.push({ event, ...(data !== undefined && { data }) });
    else event();
  }

  #frame(data: string | Buffer): void {
    if (typeof data === 'string') this.#deliver(this.#ids.fromChild(data));
    else this.#fromChildBytes(data);
    this.#initCheck();
  }

  /**
   * A long line, as bytes (LinkFrame): an answer goes to its session as they are, its id rewritten in place
   * (that session checks them, in slices). Anything else is sorted out on a worker (checked, parsed; its
   * messages' bytes, restored where they hold a wire id or token: src/pipeline/offload/demux.ts) and routed by
   * what it found; the child is held back and what it says meanwhile waits its turn. Without a worker, here.
   */
  #fromChildBytes(data: Buffer): void {
    const answered = this.#ids.answerUnparsed(data);
    if (answered) return this.#deliver(answered);
    const job = this.#demux?.(data);
    if (!job) return this.#routeDemuxed(data, demuxLine(data));
    this.#log.debug({ bytes: data.length }, 'share mode: a long line sorted out on a worker');
    this.#behind = [];
    this.pause(SORTING);
    const finish = (demuxed: Demuxed<Buffer>): void => {
      this.#settle({ event: () => this.#routeDemuxed(data, demuxed), data });
      const behind = this.#behind ?? [];
      this.#behind = undefined;
      this.resume(SORTING);
      // Until one of them goes to the worker in turn: the rest then waits behind it.
      while (behind.length > 0 && this.#behind === undefined) this.#settle(behind.shift()!);
      if (behind.length > 0) this.#behind = [...behind, ...(this.#behind ?? [])];
    };
    job
      .then(finish, (err: unknown) => {
        this.#log.warn({ err, bytes: data.length }, 'share mode: sorting out a long line on the worker failed; done on the event loop');
        finish(demuxLine(data));
      })
      // Each event is settled on its own (#settle): this is the bookkeeping around them, which must not fail silently.
      .catch((err: unknown) => this.#log.error({ err }, 'share mode: the lines after a long one could not be resumed'));
  }

  /**
   * A waiting event, run where the link's own catch cannot see it: a throw is logged, and the request a message
   * answers is answered (as the link does: `failed`).
   */
  #settle({ event, data }: Waiting): void {
    try {
      event();
    } catch (err) {
      const bytes = data === undefined ? undefined : Buffer.byteLength(data);
      this.#log.error({ err, bytes }, 'share mode: an upstream message could not be handled; dropped');
      if (data !== undefined) this.#dropped({ reason: 'failed', bytes: bytes!, ...idOf(data) });
    }
  }

  #routeDemuxed(data: Buffer, demuxed: Demuxed<Buffer>): void {
    if (demuxed.kind === 'deep') this.#dropped({ reason: 'depth', bytes: data.length, ...idOf(data) });
    else this.#deliver(this.#ids.fromDemuxed(data, demuxed));
    this.#initCheck();
  }

  /** A message of the child dropped (by the link, or here): the sessions whose requests it answers are told. */
  #dropped(dropped: LinkDropped): void {
    for (const to of this.#ids.dropped(dropped.id, dropped.reason)) this.#sessions.get(to.session)?.dropped({ ...dropped, id: to.id });
    this.#initCheck();
  }

  /** The child is gone for its sessions (it died, or was stopped): each is told, whatever another does. */
  #end(closed: LinkClosed): void {
    if (this.#closed) return;
    this.#closed = closed;
    this.#gone(this);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const session of sessions) {
      try {
        session.ended(closed);
      } catch (err) {
        this.#log.error({ err, session: session.no }, 'share mode: a session could not be told its child ended');
      }
    }
  }
}
