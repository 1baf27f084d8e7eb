/**
 * How an isolated extraction (CompiledTool.isolate: a pattern RE2 cannot run, a YAML parse) is bounded: the
 * isolation worker stops it at a deadline that grows with its text, and a tool that cannot reach that worker
 * gets a failed reading, never an inline run on the event loop.
 */

/** How long an isolated extraction may run once a worker took it (ms), before its worker is stopped… */
export const ISOLATE_DEADLINE_MS = 250;
/** …plus this much per KiB of text, so a large legitimate input is not cut off (a 1 MiB text gets 506 ms). */
const ISOLATE_MS_PER_KIB = 0.25;

/** The deadline of an isolated extraction over `bytes` of text (ms). */
export function isolateDeadlineMs(bytes: number): number {
  return ISOLATE_DEADLINE_MS + Math.ceil((bytes / 1024) * ISOLATE_MS_PER_KIB);
}

/** An isolated tool's retrofit could not go to its worker: a failed reading, never an inline run. */
export class IsolationUnavailable extends Error {
  constructor(why: string) {
    super(`the extraction must run on the isolation worker thread, and ${why}`);
    this.name = 'IsolationUnavailable';
  }
}
