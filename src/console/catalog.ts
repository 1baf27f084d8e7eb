/**
 * The tools each upstream listed (its tools/list answers, before the retrofit): names, and the outputSchema
 * it declared, if any. Bounded like the ledger (MAX_TOOLS per gateway, names of at most TOOL_NAME_CHARS
 * characters); a later listing replaces what an earlier one said of a tool.
 */
import { isJsonObject, type JsonObject, type JsonSchema } from '../json.js';
import { keepsState } from '../tool-name.js';
import { MAX_TOOLS } from './ledger.js';

/** What an upstream's listing said of one tool. */
export interface ListedTool {
  /** The outputSchema it declared, when it declared one. */
  readonly declared?: JsonSchema;
}

export class Catalog {
  readonly #upstreams = new Map<string, Map<string, ListedTool>>();
  readonly #max: number;
  #size = 0;
  #seq = 0;

  constructor(max = MAX_TOOLS) {
    this.#max = max;
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
      if (!known || (known.declared === undefined) !== (declared === undefined)) this.#seq += 1;
      tools.set(tool.name, declared === undefined ? {} : { declared });
    }
  }

  /** What `upstream` listed of `tool`, if it listed it. */
  get(upstream: string, tool: string): ListedTool | undefined {
    return this.#upstreams.get(upstream)?.get(tool);
  }

  /** The names `upstream` listed. */
  toolsOf(upstream: string): string[] {
    return [...(this.#upstreams.get(upstream)?.keys() ?? [])];
  }
}
