/** What every extractor produces: one reading of a result's text, named by the strategy that found it. */
import type { Json } from '../../json.js';

/** The strategy that produced a candidate (the `format` label of metrics and logs). */
export type ExtractorName = 'json' | 'fenced' | 'embedded' | 'blocks' | 'relaxed' | 'scalar' | 'yaml' | 'regex' | 'table' | 'csv' | 'list';

/** One reading of the text. */
export interface Candidate {
  readonly format: ExtractorName;
  readonly value: Json;
  /** Why this reading may not be what the schema wants, added to its failure reasons. */
  readonly notes?: readonly string[] | undefined;
}
