/**
 * The text block a client receives when a result could not be retrofitted (`onInvalid: error`): the tool,
 * then each failure with its JSON pointer, at most MAX_REASONS of them.
 */
import type { JsonObject } from '../config/types.js';
import { blocksOf } from './content.js';
import { MAX_REASONS } from './validate.js';

/** The failure message: one line naming the tool, then one line per reason. */
export function failureText(tool: string, kind: 'invalid' | 'unparseable', reasons: readonly string[]): string {
  const head = kind === 'invalid'
    ? `Tool "${tool}" returned output that does not match its outputSchema:`
    : `Tool "${tool}" returned no output that could be read as its outputSchema requires:`;
  const shown = reasons.slice(0, MAX_REASONS).map((r) => `- ${r}`);
  if (reasons.length > MAX_REASONS) shown.push(`- and ${reasons.length - MAX_REASONS} more`);
  return [head, ...shown].join('\n');
}

/** The `onInvalid: error` result: isError, the original content kept, the failure text appended. */
export function errorResult(result: JsonObject, text: string): JsonObject {
  const { structuredContent: _dropped, ...rest } = result;
  return { ...rest, content: [...blocksOf(result), { type: 'text', text }], isError: true };
}
