/**
 * One `$id`, one schema, across the outputSchemas one upstream serves (src/config/schema-ids.ts): clients
 * compile them all in one validator and look schemas up by `$id`.
 */
import { describe, expect, test } from 'vitest';
import { idSites } from '../../../src/config/schema-ids.js';
import { load, problemsOf } from './helpers.js';

const head = ['upstreams:', '  up:', '    url: http://127.0.0.1:9000/mcp', '    tools:'];
const ID = 'https://example.invalid/out.json';

describe('regression: two tools whose schemas have the same root $id but different content pass check', () => {
  test('the second $id is a problem, naming the first', async () => {
    const { dir, problems } = await problemsOf([
      ...head,
      `      a: { outputSchema: { $id: "${ID}", type: object, properties: { n: { type: integer } }, required: [n] } }`,
      `      b: { outputSchema: { $id: "${ID}", type: object, properties: { s: { type: string } }, required: [s] } }`,
    ].join('\n'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 6, col: 33 });
    expect(problems[0]?.message).toBe(
      `upstreams.up.tools.b.outputSchema.$id: $id "${ID}" names a different schema in tool entry "a" too (${dir}/config.yaml:5:33): a client compiles every outputSchema of a connection in one validator, so one $id must name one schema (2026-07-28, 2025-06-18, 2025-11-25 clients would see both)`,
    );
  });

  test('two tools serving one schema file share its $id', async () => {
    const file = JSON.stringify({ $id: ID, type: 'object', properties: { n: { type: 'integer' } } });
    await load([...head, '      a: { outputSchemaFile: out.json }', '      b: { outputSchemaFile: out.json }'].join('\n'), {}, { 'out.json': file });
  });

  test('an embedded $id is resolved against its base, and clashes with a root one', async () => {
    const { problems } = await problemsOf([
      ...head,
      '      a: { outputSchema: { $id: "https://example.invalid/dir/a.json", type: object, $defs: { item: { $id: "item.json", type: string } } } }',
      '      b: { outputSchema: { $id: "https://example.invalid/dir/item.json", type: integer } }',
    ].join('\n'));
    expect(problems.map((p) => `${p.line}:${p.col} ${p.message.slice(0, 88)}`)).toEqual([
      '6:33 upstreams.up.tools.b.outputSchema.$id: $id "https://example.invalid/dir/item.json" names',
    ]);
  });

  test('what is checked is what is served: a wrapped root loses its $schema for object-only clients only', async () => {
    const { problems } = await problemsOf([
      ...head,
      `      a: { outputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", $id: "${ID}", type: array } }`,
      `      b: { outputSchema: { type: object, properties: { x: { $ref: "${ID}" } }, $defs: { x: { $id: "${ID}", type: array } } } }`,
    ].join('\n'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 6, col: 126 });
    expect(problems[0]?.message).toMatch(/\(2026-07-28 clients would see both\)$/);
  });

  test('a shadowed tool serves none of its configured schema', async () => {
    await load([
      ...head,
      `      a: { outputSchema: { $id: "${ID}", type: object, required: [n] } }`,
      `      b: { outputSchema: { $id: "${ID}", type: object, required: [s] }, shadow: true }`,
      `      c: { outputSchema: { $id: "${ID}", type: object, required: [t] }, onInvalid: passthrough }`,
    ].join('\n'));
  });
});

test('idSites walks what ajv walks: not data keywords, not arrays of unknown keywords', () => {
  const schema = {
    $id: 'https://x.invalid/root.json',
    properties: { p: { $id: 'p.json' } },
    anyOf: [{ $id: 'https://y.invalid/q.json#' }],
    const: { $id: 'data.json' },
    prefixItems: [{ $id: 'not-walked.json' }],
    not: { $id: '#anchor' },
  };
  expect(idSites(schema).map((s) => [s.id, s.path.join('/')])).toEqual([
    ['https://x.invalid/root.json', ''],
    ['https://x.invalid/p.json', 'properties/p'],
    ['https://y.invalid/q.json', 'anyOf/0'],
  ]);
});
