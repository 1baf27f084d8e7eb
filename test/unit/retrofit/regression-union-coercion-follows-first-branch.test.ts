/**
 * Coercion under anyOf/oneOf followed the first branch whose type fits the value: a table row that matched a
 * later branch was coerced by the first one's types and failed validation. Each branch is now tried (its
 * compiled branch check decides), and the first branch is followed only when none validates.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonSchema } from '../../../src/json.js';
import { coerce, TRIAL_BUDGET, TRIALS_PER_VALUE } from '../../../src/retrofit/coerce.js';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

const num = { type: 'object', properties: { kind: { const: 'num' }, v: { type: 'integer' } }, required: ['kind', 'v'] };
const code = { type: 'object', properties: { kind: { const: 'code' }, v: { type: 'string' } }, required: ['kind', 'v'] };
const TABLE = '| kind | v |\n|---|---|\n| num | 12 |\n| code | 34 |';

function served(outputSchema: JsonSchema, text: string, format: 'table' | 'json' | 'yaml'): JsonObject {
  const policy = upstreamWith({ t: { outputSchema, extract: { format } } });
  return rewriteToolCall({ content: [{ type: 'text', text }] }, 't', policy, '2026-07-28').result;
}

describe('coercion under anyOf/oneOf takes the branch the value fits', () => {
  it('a table of a discriminated oneOf', () => {
    const out = served({ type: 'array', items: { oneOf: [num, code] } }, TABLE, 'table');
    expect(out.isError).toBeUndefined();
    expect(out.structuredContent).toEqual([{ kind: 'num', v: 12 }, { kind: 'code', v: '34' }]);
  });

  it('JSON strings under an anyOf of refs, in a schema with an $id', () => {
    const schema = { $id: 'https://example.com/u.json', type: 'array', items: { anyOf: [{ $ref: '#/$defs/n' }, { $ref: '#code' }] }, $defs: { n: num, c: { ...code, $anchor: 'code' } } };
    expect(served(schema, '[{"kind":"num","v":"12"},{"kind":"code","v":"34"}]', 'json').structuredContent).toEqual([{ kind: 'num', v: 12 }, { kind: 'code', v: '34' }]);
  });

  it('a typeless object branch beside a null one', () => {
    const schema = { type: 'array', items: { anyOf: [{ properties: { n: { type: 'integer' } } }, { type: 'null' }] } };
    expect(served(schema, '| n |\n|---|\n| 12 |', 'table').structuredContent).toEqual([{ n: 12 }]);
  });

  it('no branch validates: the first whose type fits is followed, as before', () => {
    const out = served({ type: 'array', items: { oneOf: [num, code] } }, '| kind | v |\n|---|---|\n| other | 5 |', 'table');
    expect(out.isError).toBe(true);
  });

  it('without branch checks, coerce follows the first branch that fits', () => {
    expect(coerce([{ kind: 'code', v: '34' }], { type: 'array', items: { oneOf: [num, code] } })).toEqual([{ kind: 'code', v: 34 }]);
  });

  it('trying branches is bounded: a rejecting check is asked a bounded number of times', () => {
    // A recursive union two branches wide, 20 levels deep: trying every combination would be 2^20 walks.
    const node = { anyOf: [{ type: 'object', properties: { v: { type: 'integer' }, k: { $ref: '#/$defs/n' } } }, { type: 'object', properties: { v: { type: 'boolean' }, k: { $ref: '#/$defs/n' } } }] };
    const schema = { $defs: { n: node }, $ref: '#/$defs/n' };
    let value: JsonObject = { v: '1' };
    for (let i = 0; i < 20; i++) value = { v: '1', k: value };
    let asked = 0;
    const out = coerce(value, schema, [], () => (asked++, false));
    expect((out as JsonObject).v).toBe(1);
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(TRIAL_BUDGET + TRIALS_PER_VALUE * 100);
  });
});
