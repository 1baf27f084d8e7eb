/**
 * `tools:` keys that govern none of the tools an upstream lists: a misspelled tool name, or a glob shadowed by
 * other keys. `check --probe` reports them from its own listing; `serve` logs them once per upstream (and
 * config generation) from the first complete listing its clients get (FirstListing). Both say it alike, in
 * the words of src/config/warnings.ts `unmatchedKeyWarning`.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import { suggestKey } from '../hint.js';
import { createMatcher, isGlob } from './match.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';

/** A `tools:` key that governs no listed tool, and why. */
export interface KeyWarning {
  readonly key: string;
  readonly message: string;
}

/** Keys (in file order) that govern none of `names`, with why. */
export function unmatchedKeys(keys: readonly string[], names: readonly string[], policy: UpstreamPolicy): KeyWarning[] {
  const warnings: KeyWarning[] = [];
  for (const key of keys) {
    if (names.some((name) => policy.resolve(name)?.key === key)) continue;
    const alone = createMatcher([key]);
    const shadowedBy = [...new Set(names.filter((name) => alone.match(name) !== undefined).map((name) => policy.resolve(name)?.key ?? ''))];
    // A name that is almost a listed one is a typo (`open_node` for `open_nodes`).
    const typo = shadowedBy.length === 0 && !isGlob(key) ? suggestKey(key, names) : undefined;
    const message =
      shadowedBy.length === 0
        ? `matches no tool listed by "${policy.upstream}"${typo === undefined ? '' : ` (did you mean "${typo}"?)`}`
        : `governs no listed tool: the tools it matches are governed by ${shadowedBy.map((k) => JSON.stringify(k)).join(', ')}`;
    warnings.push({ key, message });
  }
  return warnings;
}

/** Names gathered at most while waiting for the last page; a listing larger than this is not judged. */
const MAX_NAMES = 10_000;

/**
 * Watches one upstream's tools/list results until its first complete listing, then judges the keys once.
 * A listing is complete at the first page without `nextCursor`: a single page is judged alone; paginated
 * pages (from any client session) are gathered until then. Later listings are not judged again.
 */
export class FirstListing {
  readonly #names = new Set<string>();
  #done = false;

  /** True once the keys have been judged (or the listing was too large to be). */
  get done(): boolean {
    return this.#done;
  }

  /** Feeds one tools/list result; the warnings come back once, from the page that completes the listing. */
  observe(result: JsonObject, policy: UpstreamPolicy): KeyWarning[] {
    if (this.#done || !Array.isArray(result.tools)) return [];
    for (const tool of result.tools) if (isJsonObject(tool) && typeof tool.name === 'string') this.#names.add(tool.name);
    if (this.#names.size > MAX_NAMES) {
      this.#done = true;
      this.#names.clear();
      return [];
    }
    const next = result.nextCursor;
    if (typeof next === 'string' && next !== '') return [];
    this.#done = true;
    const warnings = unmatchedKeys(policy.keys ?? [], [...this.#names], policy);
    this.#names.clear();
    return warnings;
  }
}
