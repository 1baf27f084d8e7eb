/**
 * What the app keeps of each upstream's routes: readiness, tool-change notifications, and shutdown.
 */

export interface UpstreamRoutes {
  /** Ready-check for /readyz. */
  ready(): Promise<{ ok: boolean; detail?: string }>;
  /** After a reload changed this upstream's tools: tell open server streams; returns how many. */
  notifyToolsChanged(): number;
  /** Graceful shutdown: let what is in flight finish within `graceMs`, then close sessions and streams. */
  drain(graceMs: number): Promise<void>;
  /** Close everything now. */
  close(): Promise<void>;
  /** What it holds right now, by name (sessions, pending requests, streams, children): the debug endpoint's counts. */
  counts?(): Readonly<Record<string, number>>;
}

/** What a stdio upstream adds: visibility into its children and sessions (tests and operations). */
export interface StdioUpstreamRoutes extends UpstreamRoutes {
  /** Pids of the child processes currently running. */
  pids(): number[];
  /** Number of open client sessions. */
  sessions(): number;
}
