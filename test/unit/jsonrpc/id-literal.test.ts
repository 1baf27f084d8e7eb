import { describe, expect, it } from 'vitest';
import { RetrofitError } from '../../../src/errors.js';
import { classifyBody } from '../../../src/jsonrpc/classify.js';
import { errorAnswer, inexactId, putIdLiteral, requestIdLiterals, responseIdLiteral, responseIdLiterals, withIdLiterals } from '../../../src/jsonrpc/id-literal.js';

const BIG = '12345678901234567890';
const rounded = JSON.parse(BIG) as number;
/** How a rewritten answer keeps its id: the literal the upstream's answer (`original`) holds, put into `out`. */
const keepIdLiteral = <T extends string | Buffer>(out: T, id: unknown, original: string | Buffer | undefined): T => putIdLiteral(out, id, responseIdLiteral(id, original));

describe('inexactId', () => {
  it('is true only for integers past 2^53', () => {
    expect(inexactId(rounded)).toBe(true);
    expect(inexactId(2 ** 53 - 1)).toBe(false);
    expect(inexactId(1.5)).toBe(true);
    expect(inexactId('12345678901234567890')).toBe(false);
    expect(inexactId(null)).toBe(false);
  });
});

describe('responseIdLiteral, then putIdLiteral (a rewritten answer keeps its id)', () => {
  const original = `{"jsonrpc":"2.0","id":${BIG},"result":{}}`;
  const out = JSON.stringify({ jsonrpc: '2.0', id: rounded, result: { structuredContent: {} } });

  it('writes the original literal into a string, at its head', () => {
    expect(keepIdLiteral(out, rounded, original)).toBe(`{"jsonrpc":"2.0","id":${BIG},"result":{"structuredContent":{}}}`);
  });

  it('into bytes, at the tail, with multi-byte characters before it (byte offsets)', () => {
    const was = Buffer.from(`{"result":{"text":"é€😀"},"jsonrpc":"2.0","id":${BIG}}`);
    const now = Buffer.from(JSON.stringify({ result: { text: 'é€😀', structuredContent: 1 }, jsonrpc: '2.0', id: rounded }));
    const kept = keepIdLiteral(now, rounded, was);
    expect(kept.toString('utf8')).toBe(`{"result":{"text":"é€😀","structuredContent":1},"jsonrpc":"2.0","id":${BIG}}`);
  });

  it('leaves the answer alone when the id is exact, absent from either end, or reads as another id', () => {
    expect(keepIdLiteral('{"id":1}', 1, '{"id":1}')).toBe('{"id":1}');
    const middle = `{"jsonrpc":"2.0","result":{},"id":${BIG},"x":1}`;
    expect(keepIdLiteral(out, rounded, middle)).toBe(out);
    expect(keepIdLiteral(out, rounded, '{"jsonrpc":"2.0","id":98765432109876543210,"result":{}}')).toBe(out);
    expect(keepIdLiteral(out, rounded, undefined)).toBe(out);
  });
});

describe('responseIdLiterals', () => {
  it('is undefined when no id is inexact (the usual case), without reading the text', () => {
    expect(responseIdLiterals({ jsonrpc: '2.0', id: 1, result: {} }, 'not read')).toBeUndefined();
    expect(responseIdLiterals([{ id: 1 }, { id: 'a' }], 'not read')).toBeUndefined();
    expect(responseIdLiterals({ id: rounded }, undefined)).toBeUndefined();
  });

  it("reads each message's literal, from a single answer or a batch's elements, where its id is inexact", () => {
    const two = `${BIG.slice(0, -1)}1`;
    expect(responseIdLiterals({ id: rounded }, `{"jsonrpc":"2.0","id":${BIG},"result":{}}`)).toEqual([BIG]);
    const batch = `[{"jsonrpc":"2.0","id":${BIG},"result":{}},{"jsonrpc":"2.0","id":3,"result":{}},{"result":{},"jsonrpc":"2.0","id":${two}}]`;
    expect(responseIdLiterals(JSON.parse(batch), batch)).toEqual([BIG, undefined, two]);
  });

  it('leaves out a literal that does not read as the parsed id', () => {
    expect(responseIdLiteral(rounded, '{"jsonrpc":"2.0","id":98765432109876543210,"result":{}}')).toBeUndefined();
  });
});

describe('request id literals', () => {
  // A nested "id" (another number) and one inside a string must not be taken for the message's.
  const call = (id: string): string => `{"method":"tools/call","params":{"name":"t","arguments":{"id":98765432109876543210,"q":"\\"id\\":${BIG}1"}},"jsonrpc":"2.0","id":${id}}`;

  it("reads each message's own id as written, wherever it stands", () => {
    const text = `[${call(BIG)},${call('7')},{"jsonrpc":"2.0","method":"notifications/initialized"}]`;
    expect(requestIdLiterals(text, JSON.parse(text))).toEqual([BIG, undefined, undefined]);
    const one = call('12345678901234567891');
    expect(requestIdLiterals(one, JSON.parse(one))).toEqual(['12345678901234567891']);
  });

  it('gives up (undefined) when a nested id spelled otherwise reads as the same double', () => {
    const text = `{"jsonrpc":"2.0","id":${BIG},"method":"tools/call","params":{"arguments":{"id":12345678901234567891}}}`;
    expect(requestIdLiterals(text, JSON.parse(text))).toEqual([undefined]);
  });

  it('withIdLiterals sets idLiteral only where an id is inexact, and returns the body itself otherwise', () => {
    const plain = call('1');
    const body = classifyBody(JSON.parse(plain));
    expect(withIdLiterals(body, plain, JSON.parse(plain))).toBe(body);
    const big = call(BIG);
    const parsed: unknown = JSON.parse(big);
    expect(withIdLiterals(classifyBody(parsed), big, parsed).messages[0]).toMatchObject({ kind: 'request', id: rounded, idLiteral: BIG });
  });

  it("an error written for such a request carries the client's literal", () => {
    const error = new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', ['u', 1000]);
    expect(errorAnswer(error, rounded, BIG)).toContain(`"id":${BIG},`);
    expect(errorAnswer(error, rounded)).toContain(`"id":${JSON.stringify(rounded)},`);
    expect(errorAnswer(error, 5, '5')).toBe(JSON.stringify(error.toJsonRpc(5)));
  });

  it('putIdLiteral refuses a literal that does not read as the id', () => {
    const out = JSON.stringify({ jsonrpc: '2.0', id: rounded, error: {} });
    expect(putIdLiteral(out, rounded, '98765432109876543210')).toBe(out);
  });
});
