import { describe, expect, it } from 'vitest';
import { lazyTrail, stringifyKept, trailAt, trailOf, trailUnder } from '../../src/json-literals.js';

/** The double 12345678901234567890 reads as (a literal in code would lose precision). */
const BIG = Number('12345678901234567890');

/** `text` parsed, changed by `rewrite` as the engine changes a message (new containers around the old), written again. */
function rewritten(text: string, rewrite: (m: Record<string, unknown>) => unknown): string {
  return stringifyKept(rewrite(JSON.parse(text) as Record<string, unknown>), trailOf(text));
}

describe('kept number literals', () => {
  it('finds no trail in a text with no inexact literal (long but exact numbers included)', () => {
    expect(trailOf('{"a":1,"b":[1.5,"12345678901234567890"],"c":0.30000000000000004,"d":9007199254740992}')).toBeUndefined();
    expect(trailOf('{"a":-56560296839127050,"t":1733580000000}')).toBeUndefined();
  });

  it('writes every inexact literal back where the rewrite left it, through new containers around shared ones', () => {
    const text = '{"jsonrpc":"2.0","id":7,"result":{"content":[],"total":12345678901234567890,"_meta":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827,"list":[1,9007199254740993,{"deep":1e400}]}}}';
    const out = rewritten(text, (m) => ({ ...m, result: { ...(m.result as object), structuredContent: { made: BIG } } }));
    expect(out).toBe('{"jsonrpc":"2.0","id":7,"result":{"content":[],"total":12345678901234567890,"_meta":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827,"list":[1,9007199254740993,{"deep":1e400}]},"structuredContent":{"made":12345678901234567000}}}');
  });

  it('writes a value the rewrite changed, or a path it holds something else at, as it is', () => {
    const text = '{"result":{"a":12345678901234567890,"b":12345678901234567890,"c":[12345678901234567890],"d":{"e":12345678901234567890}}}';
    const out = rewritten(text, (m) => {
      const r = m.result as Record<string, unknown>;
      return { result: { ...r, a: 5, b: '12345678901234567890', c: { 0: BIG }, d: [BIG] } };
    });
    expect(out).toBe('{"result":{"a":5,"b":"12345678901234567890","c":{"0":12345678901234567000},"d":[12345678901234567000]}}');
  });

  it('keeps each of several literals that read as the same double apart, and the inexact root of a batch by index', () => {
    const text = '[{"id":1,"v":[12345678901234567890,12345678901234567891]},{"id":2,"v":0.12345678901234567891}]';
    const trail = trailOf(text);
    expect(trail?.array).toBe(true);
    const parsed = JSON.parse(text) as unknown[];
    expect(stringifyKept({ ...(parsed[0] as object), more: true }, trail?.children.get('0'))).toBe('{"id":1,"v":[12345678901234567890,12345678901234567891],"more":true}');
    expect(stringifyKept(parsed[1], trail?.children.get('1'))).toBe('{"id":2,"v":0.12345678901234567891}');
  });

  it('leaves an inexact literal inside a string alone, and writes without a trail as JSON.stringify does', () => {
    const text = '{"s":"12345678901234567890","n":12345678901234567890}';
    expect(rewritten(text, (m) => ({ ...m, added: 1 }))).toBe('{"s":"12345678901234567890","n":12345678901234567890,"added":1}');
    expect(stringifyKept({ n: BIG }, undefined)).toBe(JSON.stringify({ n: BIG }));
  });

  it('gives up, writing as JSON.stringify does, on a text too deep for the reviver', () => {
    const deep = `${'['.repeat(200_000)}12345678901234567890${']'.repeat(200_000)}`;
    expect(() => trailOf(deep)).not.toThrow();
  });

  it('reads a lazy trail once, when first asked for', () => {
    const trail = lazyTrail('{"n":12345678901234567890}');
    const first = trail();
    expect(first?.literals.get('n')).toBe('12345678901234567890');
    expect(trail()).toBe(first);
    expect(lazyTrail('{"n":1}')()).toBeUndefined();
  });
});

describe('trailAt and trailUnder', () => {
  it("keep a member's literals in a message made around it", () => {
    const text = '{"params":{"inputResponses":{"q":{"action":"accept","content":{"n":12345678901234567890}}}}}';
    const parsed = JSON.parse(text) as { params: { inputResponses: { q: unknown } } };
    const responses = trailAt(trailOf(text), 'params', 'inputResponses');
    const out = { jsonrpc: '2.0', id: 'e1', result: parsed.params.inputResponses.q };
    expect(stringifyKept(out, trailUnder('result', responses?.children.get('q')))).toBe('{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"n":12345678901234567890}}}');
    expect(trailAt(trailOf(text), 'params', 'other')).toBeUndefined();
    expect(trailUnder('result', undefined)).toBeUndefined();
  });
});
