import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

/**
 * A configured outputSchema's `pattern` runs on an upstream's strings: with ajv's default (a backtracking
 * RegExp) "^(a+)+$" took 1.7 s on 27 characters, doubling with each one more, on the event loop. RE2 runs it.
 */
describe('outputSchema pattern', () => {
  const answer = (value: unknown): JsonObject => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
  const run = (schema: JsonObject, value: unknown): JsonObject => rewriteToolCall(answer(value), 't', upstreamWith({ t: { extract: { format: 'json' }, outputSchema: schema } }), '2025-11-25').result;

  it('matches in time linear in the text', () => {
    const schema = { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } };
    const started = performance.now();
    expect(run(schema, { v: `${'a'.repeat(28)}!` }).isError).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(run(schema, { v: 'a'.repeat(28) }).isError).toBeUndefined();
  }, 60_000);

  it('keeps each pattern of a schema its own, patternProperties too, and runs what RE2 cannot (a lookahead)', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^x$' }, b: { type: 'string', pattern: '^y$' }, c: { type: 'string', pattern: '^(?!no)' } }, patternProperties: { '^n_': { type: 'number' } } };
    expect(run(schema, { a: 'x', b: 'y', c: 'yes', n_1: 1 }).isError).toBeUndefined();
    expect(run(schema, { a: 'y', b: 'y' }).isError).toBe(true);
    expect(run(schema, { a: 'x', b: 'x' }).isError).toBe(true);
    expect(run(schema, { c: 'no' }).isError).toBe(true);
    expect(run(schema, { n_1: 'one' }).isError).toBe(true);
  });
});
