/**
 * Where a 2019-09 or 2020-12 outputSchema means something stricter to a draft-07 validator. The v1 TypeScript
 * SDK's client validates structuredContent with ajv's draft-07 class whatever `$schema` says: keywords it
 * does not know (`prefixItems`, `minContains`) it ignores, and keywords it knows it reads the draft-07 way.
 * Most differences only make it looser than the gateway's validator, which is harmless; these make it
 * stricter, so a value the gateway validated would make that client throw:
 * - `prefixItems` beside `items`: draft-07 applies `items` to every element, the prefix included;
 * - `minContains: 0` beside `contains`: draft-07 requires at least one element to match `contains`.
 * The config loader refuses them (src/retrofit/compiled.ts), naming the form that means the same to both.
 */
import type { Json } from '../json.js';
import type { Dialect } from './schema-scope.js';
import { eachSubschema, type Segment } from './subschemas.js';

/** A place where draft-07 reads the schema more strictly, and what to write instead. */
export interface ReadingGap {
  readonly path: readonly Segment[];
  readonly message: string;
}

const TUPLE =
  '`prefixItems` with `items` means something else to draft-07 validators (the v1 TypeScript SDK client\'s, which apply `items` to every element) and they would reject valid results: declare "$schema": "http://json-schema.org/draft-07/schema#" and write the tuple as `items: [...]` with `additionalItems`';
const MIN_CONTAINS =
  '`contains` with `minContains: 0` means something else to draft-07 validators (the v1 TypeScript SDK client\'s, which ignore minContains and require one match) and they would reject valid results: leave `contains` out (with minContains 0 it requires nothing) or require a match';

/** Every gap in `schema`, read in `dialect`; none for draft-07 schemas, which every client reads alike. */
export function draft07Gaps(schema: Json, dialect: Dialect): ReadingGap[] {
  if (dialect === 'draft-07') return [];
  const out: ReadingGap[] = [];
  eachSubschema(schema, (node, path) => {
    if (dialect === '2020-12' && Array.isArray(node.prefixItems) && node.items !== undefined && node.items !== true) out.push({ path: [...path, 'prefixItems'], message: TUPLE });
    if (node.contains !== undefined && node.minContains === 0) out.push({ path: [...path, 'minContains'], message: MIN_CONTAINS });
  });
  return out;
}
