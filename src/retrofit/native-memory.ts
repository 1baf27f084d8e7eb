/**
 * What the engine learned from tools/list about tools whose outputSchema the upstream declares itself:
 * its root shape, or that it was removed. tools/call must make the same
 * decision, so it is remembered per upstream in a bounded LRU; when it is unknown (say the gateway restarted
 * between list and call) the caller decides by the value.
 */
import type { Era } from '../protocol/era.js';
import { TOOL_NAME_CHARS } from '../tool-name.js';

/**
 * What tools/list saw of a natively declared outputSchema: an object root, another root (wrapped or
 * dropped for object-only clients, per `legacyRoots`), or removed because it does not compile.
 */
export type NativeDecision = 'object' | 'non-object' | 'removed';

/** A bounded least-recently-used map: at most `max` entries, and (`maxKeyChars`) no string key longer than that kept. */
export class Lru<K, V> {
  readonly #max: number;
  readonly #maxKeyChars: number;
  readonly #map = new Map<K, V>();

  constructor(max: number, maxKeyChars = Infinity) {
    this.#max = max;
    this.#maxKeyChars = maxKeyChars;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      // Refresh recency: Map iteration order is insertion order.
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (typeof key === 'string' && key.length > this.#maxKeyChars) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
  }
}

/**
 * The key of a tool's decision: a modern upstream shows each era its own root (the natural one to
 * 2026-07-28, an object it wrapped itself to 2025-06-18/11-25), so what one era's list saw says nothing
 * about another's call.
 */
export function decisionKey(tool: string, era: Era): string {
  return `${era}\u0000${tool}`;
}

/** Per-upstream engine state kept with the policy. */
export interface NativeMemory {
  /** decisionKey(tool, era) → what that era's tools/list saw of the tool's declared schema. */
  readonly decisions: Lru<string, NativeDecision>;
  /** Repairs already reported (tool, kind, detail), so each is logged once. */
  readonly repairs: Lru<string, true>;
}

/** Tools remembered per upstream. */
export const NATIVE_MEMORY_SIZE = 1000;

/** The longest era in a decision key, and room for a repair's kind and detail beside its tool's name. */
const ERA_CHARS = 'object-only\u0000'.length;
const REPAIR_CHARS = 512;

/** Tools whose names are longer than TOOL_NAME_CHARS are not remembered (src/tool-name.ts). */
export function createNativeMemory(): NativeMemory {
  return { decisions: new Lru(NATIVE_MEMORY_SIZE, TOOL_NAME_CHARS + ERA_CHARS), repairs: new Lru(NATIVE_MEMORY_SIZE, TOOL_NAME_CHARS + REPAIR_CHARS) };
}
