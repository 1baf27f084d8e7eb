/**
 * The text block a client receives when a result could not be retrofitted (`onInvalid: error`): the tool,
 * then each failure with its JSON pointer, at most MAX_REASONS of them.
 */
import type { JsonObject } from '../json.js';
import { blocksOf } from './content.js';
import { MAX_REASONS } from './validate.js';

/** What happened to one tools/call result; logged and counted by the caller. */
export interface CallOutcome {
  readonly tool: string;
  /**
   * native: upstream structuredContent validated; extracted: text turned into structuredContent;
   * invalid: parsed but failed the schema; unparseable: nothing found; untouched: no policy, isError, or a
   * non-final result. A shadowed tool's outcome is what its retrofit found, though its client gets none of it.
   */
  readonly outcome: 'native' | 'extracted' | 'invalid' | 'unparseable' | 'untouched';
  /** The extraction strategy that succeeded (json, fenced, embedded, blocks, relaxed, scalar, yaml, regex). */
  readonly format?: string;
  /** Human-readable reasons for invalid/unparseable, each with its JSON pointer (at most 10, then "and N more"). */
  readonly reasons?: readonly string[];
}

/**
 * At most MAX_REASONS reasons, then "and N more": what clients read and what gets logged. A 10 MB array
 * can fail in a million places; nobody needs them all.
 */
export function summarize(reasons: readonly string[]): string[] {
  if (reasons.length <= MAX_REASONS) return [...reasons];
  return [...reasons.slice(0, MAX_REASONS), `and ${reasons.length - MAX_REASONS} more`];
}

/** The failure message: one line naming the tool, then one line per (summarized) reason. */
export function failureText(tool: string, kind: 'invalid' | 'unparseable', reasons: readonly string[]): string {
  const head = kind === 'invalid'
    ? `Tool "${tool}" returned output that does not match its outputSchema:`
    : `Tool "${tool}" returned no output that could be read as its outputSchema requires:`;
  return [head, ...reasons.map((r) => `- ${r}`)].join('\n');
}

/** The `onInvalid: error` result: isError, the original content kept, the failure text appended. */
export function errorResult(result: JsonObject, text: string): JsonObject {
  const { structuredContent: _dropped, ...rest } = result;
  return { ...rest, content: [...blocksOf(result), { type: 'text', text }], isError: true };
}
