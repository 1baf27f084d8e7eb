/**
 * Near-misses of JSON Schema keywords in an outputSchema (`requird`, `propertis`, `itmes`): ajv ignores
 * keywords it does not know (they are annotations), so a typo silently makes a schema looser. Found by
 * walking the schema's positions (subschemas under `properties`, `items`, `allOf`…); a key that is no
 * keyword of any draft but within a small edit distance of one is reported with the keyword it may stand for.
 * Annotations nobody mistypes (`x-…`, and words of OpenAPI such as `example`, `nullable`) are left alone.
 * The config loader refuses a near-miss (src/retrofit/compiled.ts): the fix is the keyword, or an `x-` name
 * for a meant annotation.
 */
import { type Json } from '../json.js';
import { editDistance } from '../hint.js';
import { eachSubschema, type Segment } from './subschemas.js';

const KEYWORDS = [
  '$schema', '$id', '$ref', '$defs', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$comment', '$vocabulary',
  'definitions', 'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength',
  'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'required',
  'dependentRequired', 'dependencies', 'dependentSchemas', 'properties', 'patternProperties', 'additionalProperties', 'propertyNames', 'items',
  'prefixItems', 'additionalItems', 'contains', 'unevaluatedItems', 'unevaluatedProperties', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then',
  'else', 'format', 'title', 'description', 'default', 'deprecated', 'readOnly', 'writeOnly', 'examples', 'contentEncoding',
  'contentMediaType', 'contentSchema',
];
/** Not keywords, but common and meant: never reported. */
const MEANT = new Set([...KEYWORDS, 'example', 'nullable', 'discriminator', 'xml', 'externalDocs', 'id']);

/** A near-miss: where it is (under the schema's own path) and the keyword it may stand for. */
export interface SchemaTypo {
  readonly path: readonly Segment[];
  readonly key: string;
  readonly keyword: string;
}

function nearest(key: string): string | undefined {
  const lower = key.toLowerCase();
  const budget = key.length >= 6 ? 2 : 1;
  let best: { keyword: string; d: number } | undefined;
  for (const keyword of KEYWORDS) {
    const d = editDistance(lower, keyword.toLowerCase());
    if (d <= budget && (!best || d < best.d)) best = { keyword, d };
  }
  return best?.keyword;
}

/** Every near-miss in `schema`, in document order (bounded in depth, as schemas are). */
export function schemaTypos(schema: Json): SchemaTypo[] {
  const out: SchemaTypo[] = [];
  const meant = (key: string): boolean => MEANT.has(key) || key.startsWith('x-');
  eachSubschema(schema, (node, path) => {
    for (const key of Object.keys(node)) {
      if (meant(key)) continue;
      const keyword = nearest(key);
      if (keyword !== undefined) out.push({ path: [...path, key], key, keyword });
    }
  }, meant);
  return out;
}
