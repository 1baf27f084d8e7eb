/**
 * fast-check: for random JSON samples (objects, arrays, nesting, types mixed across samples, strings that
 * are sometimes dates, e-mails, URIs or a small closed set), the inferred schema compiles with the gateway's
 * ajv setup and validates every sample it was inferred from; and so does its wrapped form, for the
 * {result: V} values that 2025-11-25 clients get.
 */
import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { inferSchema } from '../../../src/infer/index.js';
import type { Json } from '../../../src/json.js';
import { check, compileSchema } from '../../../src/retrofit/validate.js';
import { wrapSchema, wrapValue } from '../../../src/retrofit/wrap.js';

/** Strings that often match a format or repeat, so formats and enums get exercised. */
const string = fc.oneof(
  fc.string(),
  fc.constantFrom('sunny', 'cloudy', 'rain'),
  fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.emailAddress(),
  fc.webUrl(),
  fc.constantFrom('2026-01-01T10:00:00', 'status:ok', 'mailto:x', ''),
);

const { value } = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    string,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.constantFrom('id', 'name', 'at', 'tags', '__proto__'), fc.string({ maxLength: 4 })), tie('value'), { maxKeys: 5 }),
  ),
}));

/** Samples of one tool: usually alike (the same keys), sometimes not. */
const samples = fc.oneof(
  fc.array(value, { minLength: 1, maxLength: 30 }),
  fc.array(fc.record({ id: fc.integer(), name: string, tags: fc.array(string, { maxLength: 4 }), extra: fc.option(value) }, { requiredKeys: ['id'] }), { minLength: 1, maxLength: 30 }),
);

describe('inferred schemas', () => {
  it('validate every sample they were inferred from, as is and wrapped', () => {
    fc.assert(
      fc.property(samples, (list) => {
        // Samples reach infer through JSON (a recording, an upstream's text): the same here.
        const values = list.map((v) => JSON.parse(JSON.stringify(v)) as Json);
        const schema = inferSchema(values);
        const plain = compileSchema(schema);
        const wrapped = compileSchema(wrapSchema(schema));
        expect(plain.ok && wrapped.ok).toBe(true);
        if (!plain.ok || !wrapped.ok) return;
        for (const v of values) {
          expect(check(plain.validate, v)).toEqual({ ok: true });
          expect(check(wrapped.validate, wrapValue(v))).toEqual({ ok: true });
        }
      }),
      { numRuns: 300 },
    );
  });
});
