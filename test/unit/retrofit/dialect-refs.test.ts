/**
 * `$ref`s through the draft-to-2020-12 rewrite (src/retrofit/dialect-refs.ts), each schema judged before and
 * after by ajv (its own draft, then 2020-12) on the same instances:
 * - regression F3 (review D): a draft-07 schema that `$ref`s another file, as the config loader bundles it
 *   (the file embedded under `definitions` with an absolute `$id`, the ref an absolute URI ending in
 *   `#/definitions/…`), was served with the embedded `definitions` renamed and the ref not: no client could
 *   compile it;
 * - regression F4 (review D): a schema with both `definitions.n` and `$defs.n` had its `#/definitions/n` refs
 *   pointed at the `$defs` one, so the client rejected what the gateway accepted;
 * - `$id`-based refs, local refs inside a nested resource (resolved against it, not the root), `$id: "#name"`
 *   anchors;
 * - what cannot be rewritten faithfully is not rewritten (served as written), never half-done.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { DIALECT_2020_12, rewriteTo202012, servedAsWritten, to202012 } from '../../../src/retrofit/dialect.js';
import { load } from '../config/helpers.js';
import { expectSameVerdicts, newValidator } from './dialect-equivalence.js';

const D7 = 'http://json-schema.org/draft-07/schema#';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';

/** The outputSchema of tool `t` as the config loader bundles it, with `files` beside the config. */
async function bundled(schema: JsonObject, files: Record<string, JsonObject>): Promise<JsonObject> {
  const yaml = `upstreams:\n  a:\n    url: http://127.0.0.1:9000/mcp\n    tools:\n      t:\n        outputSchema: ${JSON.stringify(schema)}\n`;
  const others = Object.fromEntries(Object.entries(files).map(([name, body]) => [name, JSON.stringify(body)]));
  const { loaded } = await load(yaml, {}, others);
  return loaded.config.upstreams.a!.tools.t!.outputSchema as JsonObject;
}

function rewritten(schema: JsonObject): JsonObject {
  const out = to202012(schema);
  if (out === undefined || typeof out === 'boolean') throw new Error(`not rewritten: ${JSON.stringify(rewriteTo202012(schema))}`);
  expect(out.$schema).toBe(DIALECT_2020_12);
  return out;
}

describe('regression F3: schemaDialect 2020-12 on a draft-07 schema that $refs another file', () => {
  it('the embedded file\'s absolute ref follows definitions → $defs; the rewrite compiles and accepts what the original did', async () => {
    const schema = await bundled(
      { $schema: D7, type: 'object', properties: { n: { $ref: 'common.json#/definitions/count' } }, required: ['n'] },
      { 'common.json': { $schema: D7, definitions: { count: { type: 'integer', minimum: 0 } } } },
    );
    expect(JSON.stringify(schema)).toMatch(/"\$ref":"https:\/\/mcp-retrofit\.invalid\/schema-files\/[0-9a-f]{16}\/common\.json#\/definitions\/count"/);
    const out = rewritten(schema);
    // What the v2 client did with it: "can't resolve reference …/common.json#/definitions/count".
    expect(newValidator(out)({ n: 3 })).toBe(true);
    expect(JSON.stringify(out)).toMatch(/"\$ref":"https:\/\/mcp-retrofit\.invalid\/schema-files\/[0-9a-f]{16}\/common\.json#\/\$defs\/count"/);
    expectSameVerdicts(schema, out, { seed: 3, also: [{ n: 3 }, { n: -1 }, { n: 'x' }, {}] });
  });

  it('inside the embedded file, local refs resolve against the file (its tuple items, its definitions), not the root', async () => {
    const schema = await bundled(
      { $schema: D7, type: 'object', properties: { p: { $ref: 'pair.json' }, first: { $ref: 'pair.json#/items/0' }, rest: { $ref: 'pair.json#/additionalItems' } } },
      { 'pair.json': { $schema: D7, type: 'array', definitions: { label: { type: 'string', minLength: 2 } }, items: [{ $ref: '#/definitions/label' }, { type: 'integer' }], additionalItems: { $ref: '#/definitions/label' } } },
    );
    const out = rewritten(schema);
    expect(JSON.stringify(out)).toMatch(/pair\.json#\/prefixItems\/0"/);
    expect(JSON.stringify(out)).toMatch(/pair\.json#\/items"/);
    expectSameVerdicts(schema, out, { seed: 4, also: [{ p: ['ab', 1], first: 'ab', rest: 'cd' }, { p: ['ab', 1, 'x'] }, { first: 'a' }, { p: [1, 1] }] });
  });
});

describe('regression F4: definitions and $defs that share a name', () => {
  const schema: JsonObject = {
    $schema: D7,
    type: 'object',
    properties: { n: { $ref: '#/definitions/n' }, s: { $ref: '#/$defs/n' }, t: { $ref: '#/$defs/n-definitions' } },
    required: ['n'],
    definitions: { n: { type: 'integer' } },
    $defs: { n: { type: 'string' }, 'n-definitions': { type: 'boolean' } },
  };

  it('the definitions entry takes a fresh $defs key and its refs follow it: {"n":3} stays valid', () => {
    const out = rewritten(schema);
    expect(out.$defs).toEqual({ n: { type: 'string' }, 'n-definitions': { type: 'boolean' }, 'n-definitions-2': { type: 'integer' } });
    expect(out.properties).toEqual({ n: { $ref: '#/$defs/n-definitions-2' }, s: { $ref: '#/$defs/n' }, t: { $ref: '#/$defs/n-definitions' } });
    expect(newValidator(out)({ n: 3 })).toBe(true);
    expectSameVerdicts(schema, out, { seed: 5, also: [{ n: 3 }, { n: 'x' }, { n: 3, s: 'x', t: true }, { n: 3, s: 3 }] });
  });

  it('a 2019-09 schema, where both are keywords, the same', () => {
    const s2019 = { ...schema, $schema: D2019 };
    expectSameVerdicts(s2019, rewritten(s2019), { seed: 6, also: [{ n: 3 }, { n: 'x' }] });
  });
});

describe('refs by $id and anchors', () => {
  const schema: JsonObject = {
    $schema: D7,
    $id: 'https://example.test/schemas/root.json',
    type: 'object',
    definitions: {
      part: {
        $id: 'part.json',
        type: 'array',
        definitions: { word: { $id: '#word', type: 'string', maxLength: 3 } },
        items: [{ $ref: '#/definitions/word' }, { $ref: '#word' }],
        additionalItems: false,
      },
    },
    properties: {
      a: { $ref: 'part.json#/definitions/word' },
      b: { $ref: 'https://example.test/schemas/part.json#/items/1' },
      c: { $ref: 'part.json' },
      d: { $ref: '#/definitions/part/items/0' },
    },
  };

  it('relative and absolute refs into an $id resource, and `$id: "#name"` as $anchor, mean what they meant', () => {
    const out = rewritten(schema);
    const part = (out.$defs as JsonObject).part as JsonObject;
    expect((part.$defs as JsonObject).word).toEqual({ $anchor: 'word', type: 'string', maxLength: 3 });
    expect(out.properties).toEqual({
      a: { $ref: 'part.json#/$defs/word' },
      b: { $ref: 'https://example.test/schemas/part.json#/prefixItems/1' },
      c: { $ref: 'part.json' },
      d: { $ref: '#/$defs/part/prefixItems/0' },
    });
    expectSameVerdicts(schema, out, { seed: 7, also: [{ a: 'abc', b: 'x', c: ['a', 'b'], d: 'y' }, { a: 'abcd' }, { c: ['a', 'b', 'c'] }, { c: [1] }] });
  });
});

describe('keywords the source draft ignores', () => {
  it('are dropped, so 2020-12 does not start applying them', () => {
    const schema: JsonObject = {
      $schema: D7,
      type: 'object',
      definitions: { x: { type: 'array', prefixItems: [{ type: 'string' }], items: [{ type: 'integer' }], minContains: 3, contains: { type: 'integer' } } },
      properties: { x: { $ref: '#/definitions/x' } },
      dependentRequired: { x: ['y'] },
      unevaluatedProperties: false,
    };
    const out = rewritten(schema);
    expect(JSON.stringify(out)).not.toMatch(/dependentRequired|unevaluatedProperties|minContains/);
    expectSameVerdicts(schema, out, { seed: 8, also: [{ x: [1] }, { x: [1, 'a'] }, { x: ['a'] }, { z: 1 }] });
  });
});

describe('what cannot be rewritten faithfully is left as it was', () => {
  it.each<[string, JsonObject]>([
    ['a ref into a keyword draft-07 ignores', { $schema: D7, prefixItems: [{ type: 'string' }], properties: { a: { $ref: '#/prefixItems/0' } }, definitions: {} }],
    ['a ref outside the schema', { $schema: D7, properties: { a: { $ref: 'other.json#/definitions/a' } } }],
    ['an $id with a base and a fragment', { $schema: D7, definitions: { a: { $id: 'a.json#x' } } }],
    ['an anchor 2020-12 cannot name', { $schema: D7, definitions: { a: { $id: '#a:b' } } }],
    ['a ref to additionalItems beside no array items', { $schema: D7, items: { type: 'string' }, additionalItems: { type: 'integer' }, properties: { a: { $ref: '#/additionalItems' } } }],
    ['two 2019-09 dependent schemas for one name', { $schema: D2019, dependencies: { a: { required: ['b'] } }, dependentSchemas: { a: { required: ['c'] } } }],
  ])('%s', (_name, schema) => {
    const out = rewriteTo202012(schema);
    expect(out.ok).toBe(false);
    expect(to202012(schema)).toBeUndefined();
    // What `check` warns with (src/config/warnings.ts).
    expect(servedAsWritten(schema)).toBe(out.ok ? undefined : out.reason);
  });

  it('servedAsWritten names nothing for a schema the profile does not rewrite (2020-12 already) or rewrites', () => {
    expect(servedAsWritten({ $schema: DIALECT_2020_12, properties: { a: { $ref: 'other.json#/$defs/a' } } })).toBeUndefined();
    expect(servedAsWritten({ $schema: D7, definitions: { a: { type: 'string' } }, properties: { a: { $ref: '#/definitions/a' } } })).toBeUndefined();
    expect(servedAsWritten(true)).toBeUndefined();
  });
});
