/**
 * One session's link to a shared stdio child (./shared-stdio.ts): what the session core sees as its upstream
 * link, and the per-session half of share mode's backpressure. A backed-up client never pauses the child:
 * what comes for its session is held here, in order, and passed on as the client drains.
 */
import { RetrofitError } from '../errors.js';
import type { Logger } from '../log.js';
import type { LinkClosed, LinkDropped, LinkFrame, SendOutcome, UpstreamLink } from './link.js';

/** What a session's link asks of the shared child it is a view of (SharedChild in ./shared-stdio.ts). */
export interface SharedChildPort {
  readonly alive: boolean;
  readonly pid: number | undefined;
  send(session: SessionLink, json: string): SendOutcome | Promise<SendOutcome>;
  abandoned(session: SessionLink, id: string | number, method: string, error: RetrofitError): void;
  detach(session: SessionLink): Promise<void>;
  /** `session` holds `delta` bytes more (or fewer) for its backed-up client; past the bounds a session is ended. */
  held(session: SessionLink, delta: number): void;
}

/** Something the child said for a session while its client was backed up, waiting its turn. */
interface Held {
  readonly bytes: number;
  readonly event: () => void;
}

/**
 * One session's view of the shared child. Its client being backed up (pause()) does not pause the child: what
 * comes for the session meanwhile is held here, in order, and passed on as it drains (resume()); past the bounds
 * (SharedChildPort.held) the session is ended, so one client that stops reading costs a bounded buffer and its own
 * session, never the others' calls.
 */
export class SessionLink implements UpstreamLink {
  onframe: (frame: LinkFrame) => void = () => {};
  ondropped: (dropped: LinkDropped) => void = () => {};
  onclose: (closed: LinkClosed) => void = () => {};
  readonly no: number;
  readonly log: Logger;
  readonly #child: SharedChildPort;
  readonly #upstream: string;
  #closed: LinkClosed | undefined;
  #closing: Promise<void> | undefined;
  #backedUp = false;
  /** What waits for the client, from #heldAt on (an index, not shift(): a stalled client may have thousands). */
  #held: Held[] = [];
  #heldAt = 0;
  #heldBytes = 0;
  #flushing = false;

  constructor(child: SharedChildPort, no: number, log: Logger, upstream: string) {
    this.#child = child;
    this.no = no;
    this.log = log;
    this.#upstream = upstream;
  }

  get alive(): boolean {
    return this.#open && this.#child.alive;
  }

  /** Bytes held for the backed-up client. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  get pid(): number | undefined {
    return this.alive ? this.#child.pid : undefined;
  }

  get #open(): boolean {
    return this.#closed === undefined && this.#closing === undefined;
  }

  send(json: string): SendOutcome | Promise<SendOutcome> {
    return this.#closed ? this.refused() : this.#child.send(this, json);
  }

  pause(): void {
    this.#backedUp = true;
  }

  resume(): void {
    this.#backedUp = false;
    this.#flush(false);
  }

  abandoned(id: string | number, method: string, error: RetrofitError): void {
    if (this.#open) this.#child.abandoned(this, id, method, error);
  }

  /** Detach from the child (the last session's close resolves once the child is gone). */
  close(): Promise<void> {
    this.#closing ??= this.#child.detach(this).then(() => this.ended({ kind: 'requested', reason: 'session closed' }));
    return this.#closing;
  }

  refused(): SendOutcome {
    return { ok: false, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_EXITED', [this.#upstream, this.#closed?.reason ?? 'session closed']) };
  }

  /** A message of the child's for this session (bytes: a long answer, unchecked; see LinkFrame). */
  deliver(data: string | Buffer): void {
    if (this.#open) this.#inTurn(data, () => this.onframe({ data }));
  }

  dropped(dropped: LinkDropped): void {
    if (this.#open) this.#inTurn(undefined, () => this.ondropped(dropped));
  }

  /** The link is gone (the child died, or the session detached): told once, after what was held for it. */
  ended(closed: LinkClosed): void {
    if (this.#closed) return;
    this.#closed = closed;
    this.#flush(true);
    this.onclose(closed);
  }

  /** Cut off (SharedChild.cutOff): what is held is dropped, the session detaches and ends with `reason`. */
  cut(reason: string): void {
    this.#release(this.#held.length - this.#heldAt);
    this.#closing ??= this.#child.detach(this).then(() => this.ended({ kind: 'requested', reason }));
  }

  /** Now, unless the client is backed up or something waits before it; held past the bounds, the session is cut. */
  #inTurn(data: string | Buffer | undefined, event: () => void): void {
    if (!this.#backedUp && this.#heldAt === this.#held.length) return event();
    const bytes = data === undefined ? 0 : Buffer.byteLength(data);
    this.#held.push({ bytes, event });
    this.#heldBytes += bytes;
    this.#child.held(this, bytes);
  }

  /** The first `count` held events leave (told, or dropped), and the bytes they held with them. */
  #release(count: number): void {
    let bytes = 0;
    for (let i = this.#heldAt; i < this.#heldAt + count; i++) bytes += this.#held[i]!.bytes;
    this.#heldAt += count;
    if (this.#heldAt === this.#held.length) {
      this.#held = [];
      this.#heldAt = 0;
    }
    this.#heldBytes -= bytes;
    if (count > 0) this.#child.held(this, -bytes);
  }

  /**
   * What was held, in order, until the client backs up again (each delivery asks it: OwnedSession.pressureChanged);
   * `all`: regardless (the link ends; the client side bounds what it is given by what was held).
   */
  #flush(all: boolean): void {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      while (this.#heldAt < this.#held.length && (all || !this.#backedUp)) {
        const held = this.#held[this.#heldAt]!;
        this.#release(1);
        held.event();
      }
    } finally {
      this.#flushing = false;
    }
  }
}
