/**
 * What one offload worker knows: the tool ids whose compiled config it holds. The pool alone decides what a
 * worker keeps, and every job for a tool carries the ids the worker must drop first (OffloadJob.forget), so the
 * two records cannot disagree: the worker's map is this set, one message behind. A tool is dropped when it is
 * the least recently used past MAX_TOOLS, or when its policy object was collected (a replaced config's tools:
 * dropped(), from the pool's FinalizationRegistry; ids are never reused).
 */

/** Compiled tools a worker keeps at most. */
export const MAX_TOOLS = 1024;

/** What a job for one tool must carry (see OffloadJob). */
export interface ToolPlan {
  readonly toolId: number;
  /** The worker lacks the tool: the job carries its config. */
  readonly compile: boolean;
  /** Ids the worker must drop before it runs the job (absent: none). */
  readonly forget?: readonly number[];
}

export class KnownTools {
  /** Least recently used first (a Set keeps insertion order; a use re-inserts). */
  readonly #ids = new Set<number>();
  /** Dropped here and not yet told to the worker. */
  #forget: number[] = [];
  readonly #max: number;

  constructor(max: number = MAX_TOOLS) {
    this.#max = Math.max(1, max);
  }

  /** Tools the worker holds once it has read the jobs posted so far. */
  get size(): number {
    return this.#ids.size;
  }

  /** Record a job for `toolId` as posted, and say what it must carry; undo() it if the post failed. */
  use(toolId: number): ToolPlan {
    const compile = !this.#ids.delete(toolId);
    this.#ids.add(toolId);
    if (compile && this.#ids.size > this.#max) {
      const oldest = this.#ids.values().next().value as number;
      this.#ids.delete(oldest);
      this.#forget.push(oldest);
    }
    const forget = this.#forget;
    this.#forget = [];
    return { toolId, compile, ...(forget.length > 0 && { forget }) };
  }

  /** The job of `plan` never reached the worker: it has neither the config nor the news. */
  undo(plan: ToolPlan): void {
    if (plan.compile) this.#ids.delete(plan.toolId);
    if (plan.forget) this.#forget.unshift(...plan.forget);
  }

  /** `toolId` will never be used again: the worker is told with its next job. */
  dropped(toolId: number): void {
    if (this.#ids.delete(toolId)) this.#forget.push(toolId);
  }
}
