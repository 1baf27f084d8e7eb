/**
 * The judge of the draft-to-2020-12 rewrite (src/retrofit/dialect.ts): ajv's validator of the draft a schema
 * declares, ajv's 2020-12 validator (ajv/dist/2020, which also checks the rewrite against the 2020-12
 * meta-schema), and fast-check instances built from a schema's own names and values, so that both valid and
 * invalid ones occur.
 */
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import fc from '../../helpers/fast-check.js';
import { expect } from 'vitest';
import type { Json, JsonObject } from '../../../src/json.js';
import { draftOf } from '../../../src/retrofit/dialect.js';

// CommonJS default exports, as src/retrofit/validate.ts takes ajv-formats.
const AjvDraft04 = ((AjvDraft04Module as unknown as { default?: unknown }).default ?? AjvDraft04Module) as new (options: object) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** ajv for the draft a schema declares. */
export function oldValidator(schema: JsonObject): (value: unknown) => boolean {
  const draft = draftOf(schema);
  const options = { strict: false, allErrors: true, logger: false as const, validateFormats: true };
  const ajv = draft === 'draft-04' ? new AjvDraft04(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (v) => validate(v) === true;
}

export function newValidator(schema: JsonObject): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (v) => validate(v) === true;
}

/** Values that appear in the schema (names, enum and const members, bounds): instances near the edges. */
function valuesIn(schema: Json, out: { keys: Set<string>; values: Json[] } = { keys: new Set(), values: [] }, depth = 0): { keys: Set<string>; values: Json[] } {
  if (depth > 20) return out;
  if (Array.isArray(schema)) for (const s of schema) valuesIn(s, out, depth + 1);
  else if (schema !== null && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' && v !== null && typeof v === 'object' && !Array.isArray(v)) for (const name of Object.keys(v)) out.keys.add(name);
      if (k === 'dependencies' && v !== null && typeof v === 'object') for (const name of Object.keys(v)) out.keys.add(name);
      if (k === 'enum' && Array.isArray(v)) out.values.push(...v);
      if (k === 'const') out.values.push(v);
      if (typeof v === 'number') out.values.push(v, v - 1, v + 1, v + 0.5);
      valuesIn(v, out, depth + 1);
    }
  }
  return out;
}

/** Instances for `schema`: its own keys and values mixed with random JSON, nested a little. */
export function instances(schema: JsonObject): fc.Arbitrary<unknown> {
  const { keys, values } = valuesIn(schema);
  const scalar = fc.oneof(
    fc.constantFrom<Json>(...values, 'no', 'ab', 'abcd', '2026-01-01T00:00:00Z', 'a@b.co', 'https://x.example/y', 'not a date', 0, 3, -1, true, null),
    fc.string({ maxLength: 5 }),
    fc.integer({ min: -5, max: 20 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -20, max: 20 }),
    fc.boolean(),
  );
  const key = keys.size > 0 ? fc.constantFrom(...keys) : fc.string({ maxLength: 3 });
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    ),
  }));
  // Flat objects and arrays of the schema's own values reach the valid side; nested ones the rest.
  return fc.oneof(value, fc.dictionary(key, scalar, { maxKeys: 3 }), fc.array(scalar, { maxLength: 4 }), fc.dictionary(key, fc.oneof(fc.array(scalar, { maxLength: 3 }), fc.dictionary(key, scalar, { maxKeys: 3 })), { maxKeys: 3 }));
}

/**
 * Asserts that `original` (judged in its own draft) and `rewritten` (judged as 2020-12) accept exactly the same
 * instances: `also`, then fast-check ones; and that the instances reached both sides, or the comparison
 * proves little.
 */
export function expectSameVerdicts(original: JsonObject, rewritten: JsonObject, options: { readonly seed: number; readonly numRuns?: number; readonly also?: readonly unknown[] }): void {
  const before = oldValidator(original);
  const after = newValidator(rewritten);
  let valid = 0;
  let invalid = 0;
  const judge = (instance: unknown): void => {
    const verdict = before(instance);
    if (verdict) valid++;
    else invalid++;
    expect({ instance, verdict: after(instance) }).toEqual({ instance, verdict });
  };
  for (const instance of options.also ?? []) judge(instance);
  fc.assert(fc.property(instances(original), judge), { numRuns: options.numRuns ?? 400, seed: options.seed });
  expect({ valid: valid > 0, invalid: invalid > 0 }).toEqual({ valid: true, invalid: true });
}
