/**
 * Who is told when a session the gateway counts opens and ends (the operator console's session list,
 * src/console/sessions.ts). Told where `mcp_retrofit_active_sessions` moves, so the list and the gauge agree.
 * Absent (the console off): nothing is told.
 */
import type { SessionState } from './state.js';

/** What a watcher may read of a session's state (its identity is the key of the session). */
export type WatchedSession = Pick<SessionState, 'negotiated' | 'client' | 'profile'>;

export interface SessionWatch {
  /** A session was opened (counted): its upstream, its id, and its state (read later for client and revisions). */
  opened(upstream: string, id: string, state: WatchedSession): void;
  /** The session opened with `state` ended (uncounted). */
  closed(state: WatchedSession): void;
}
