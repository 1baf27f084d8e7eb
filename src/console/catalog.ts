/**
 * The tools each upstream listed (its tools/list answers, before the retrofit): names, and the outputSchema
 * it declared, if any. Bounded like the ledger (MAX_TOOLS per gateway, names of at most TOOL_NAME_CHARS
 * characters), and the declared schemas kept by MAX_DECLARED_CHARS; a later listing replaces what an earlier one
 * said of a tool.
 */
import { isJsonObject, type JsonObject, type JsonSchema } from '../json.js';
import { keepsState } from '../tool-name.js';
import { MAX_TOOLS } from './ledger.js';

/** What an upstream's listing said of one tool. */
export interface ListedTool {
  /** The outputSchema it declared, when it declared one. */
  readonly declared?: JsonSchema;
}

/** Most characters of declared outputSchemas (their JSON) the catalog keeps, per gateway. */
export const MAX_DECLARED_CHARS = 16 * 1024 * 1024;

/** What a tool's entry holds: what its listing said, and the characters of it kept. */
interface Entry {
  readonly tool: ListedTool;
  readonly chars: number;
}

export class Catalog {
  readonly #upstreams = new Map<string, Map<string, Entry>>();
  readonly #max: number;
  readonly #maxChars: number;
  #size = 0;
  #chars = 0;
  #seq = 0;

  constructor(max = MAX_TOOLS, maxChars = MAX_DECLARED_CHARS) {
    this.#max = max;
    this.#maxChars = maxChars;
  }

  /** Bumped when a listing changed what is known. */
  get seq(): number {
    return this.#seq;
  }

  /** Read one tools/list result of `upstream`. */
  listed(upstream: string, result: JsonObject): void {
    if (!Array.isArray(result.tools)) return;
    let tools = this.#upstreams.get(upstream);
    if (!tools) this.#upstreams.set(upstream, (tools = new Map()));
    for (const tool of result.tools) {
      if (!isJsonObject(tool) || typeof tool.name !== 'string' || !keepsState(tool.name)) continue;
      const schema = tool.outputSchema;
      const declared = isJsonObject(schema) || typeof schema === 'boolean' ? (schema as JsonSchema) : undefined;
      const known = tools.get(tool.name);
      if (!known && this.#size >= this.#max) continue;
      if (!known) this.#size += 1;
      // Every listing holds new objects: only a tool new, or a schema come or gone, is a change to show.
      if (!known || (known.tool.declared === undefined) !== (declared === undefined)) this.#seq += 1;
      const entry = this.#entry(declared, known?.chars ?? 0);
      this.#chars += entry.chars - (known?.chars ?? 0);
      tools.set(tool.name, entry);
    }
  }

  /**
   * What is kept of a declared schema: itself while the kept schemas fit MAX_DECLARED_CHARS (an upstream lists
   * what it likes, as often as it likes), else a stand-in that says it was declared and why it is not shown.
   */
  #entry(declared: JsonSchema | undefined, replacing: number): Entry {
    if (declared === undefined) return { tool: {}, chars: 0 };
    const chars = JSON.stringify(declared).length;
    if (this.#chars - replacing + chars <= this.#maxChars) return { tool: { declared }, chars };
    return { tool: { declared: { description: `declared (${chars} characters of JSON), not kept: the console keeps ${this.#maxChars} characters of declared schemas` } }, chars: 0 };
  }

  /** What `upstream` listed of `tool`, if it listed it. */
  get(upstream: string, tool: string): ListedTool | undefined {
    return this.#upstreams.get(upstream)?.get(tool)?.tool;
  }

  /** The names `upstream` listed. */
  toolsOf(upstream: string): string[] {
    return [...(this.#upstreams.get(upstream)?.keys() ?? [])];
  }
}
