/**
 * The open sessions the console lists: told by the session owners where `mcp_retrofit_active_sessions`
 * moves (src/session/watch.ts), so every entry is freed when its session ends. What a session says of itself
 * (client, revisions, bridged, profile) is read from its state when the list is asked for, not copied.
 * Bounded at MAX_SESSIONS entries (beyond: counted, not listed).
 */
import type { SessionWatch, WatchedSession } from '../session/watch.js';
import type { SessionRow, SessionsReply } from './wire.js';

/** Most sessions held in the list. */
export const MAX_SESSIONS = 20_000;
/** Most sessions the API lists (newest first); the aggregates count them all. */
export const LISTED = 1_000;

interface Entry {
  readonly upstream: string;
  readonly id: string;
  readonly openedAt: number;
}

/**
 * Longest client name or version the view holds whole (as the logs' `client`): initialize's clientInfo is the
 * client's to write, up to `limits.maxRequestBytes`, and the view lists 1,000 sessions and keys a count by name.
 */
export const CLIENT_CHARS = 120;

const cut = (text: string): string => (text.length > CLIENT_CHARS ? `${text.slice(0, CLIENT_CHARS)}…` : text);

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

export class SessionBook implements SessionWatch {
  readonly #open = new Map<WatchedSession, Entry>();
  readonly #max: number;
  readonly #now: () => number;
  #unlisted = 0;
  #seq = 0;

  constructor(options: { readonly max?: number; readonly now?: () => number } = {}) {
    this.#max = options.max ?? MAX_SESSIONS;
    this.#now = options.now ?? Date.now;
  }

  /** Bumped on every open and close. */
  get seq(): number {
    return this.#seq;
  }

  get size(): number {
    return this.#open.size;
  }

  opened(upstream: string, id: string, state: WatchedSession): void {
    this.#seq += 1;
    if (this.#open.size >= this.#max) {
      this.#unlisted += 1;
      return;
    }
    this.#open.set(state, { upstream, id, openedAt: this.#now() });
  }

  closed(state: WatchedSession): void {
    this.#seq += 1;
    this.#open.delete(state);
  }

  /** The list and its aggregates, now. */
  view(): SessionsReply {
    const byRevision = new Map<string, number>();
    const byClient = new Map<string, number>();
    const byProfile = new Map<string, number>();
    let bridged = 0;
    const all: SessionRow[] = [];
    for (const [state, entry] of this.#open) {
      const negotiated = state.negotiated;
      const client = state.client;
      const profile = state.profile ?? null;
      if (negotiated) bump(byRevision, negotiated.client);
      bump(byClient, client?.name === undefined ? '(unnamed)' : cut(client.name));
      if (profile !== null) bump(byProfile, profile);
      if (negotiated?.bridged) bridged += 1;
      all.push({
        upstream: entry.upstream,
        id: `${entry.id.slice(0, 8)}…`,
        client: client ? { name: client.name === undefined ? null : cut(client.name), version: client.version === undefined ? null : cut(client.version) } : null,
        revision: negotiated?.client ?? null,
        upstreamRevision: negotiated?.upstream ?? null,
        bridged: negotiated?.bridged === true,
        profile,
        openedAt: entry.openedAt,
      });
    }
    // Insertion order is opening order: the newest are last.
    const sessions = all.slice(-LISTED).reverse();
    return { total: this.#open.size, byRevision: Object.fromEntries(byRevision), byClient: Object.fromEntries(byClient), byProfile: Object.fromEntries(byProfile), bridged, unlisted: this.#unlisted, sessions };
  }
}
