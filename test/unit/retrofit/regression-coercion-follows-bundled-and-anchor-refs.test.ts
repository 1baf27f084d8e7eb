/**
 * The schema-guided steps (coercion, the typing of text scalars, root types) resolved only `#/…` refs against
 * the document's root: a ref to a bundled schema file (an embedded resource with its own `$id`), a ref inside
 * such a file (against its own root), a ref by a root `$id`, and `$anchor` refs were not followed, so cells
 * under them stayed strings and failed validation. They now resolve as a validator does (ref-resolve.ts).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../src/json.js';
import { loadConfig } from '../../../src/config/load.js';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { resolveRef } from '../../../src/retrofit/ref-resolve.js';
import { tempFiles } from '../config/helpers.js';
import { upstreamWith } from './helpers.js';

const TABLE = '| id | name |\n|---|---|\n| 1 | a |';
const ROW = { type: 'object', properties: { id: { type: 'integer' } } };

function served(outputSchema: JsonSchema, text = TABLE): unknown {
  const policy = upstreamWith({ t: { outputSchema, extract: { format: 'table' } } });
  return rewriteToolCall({ content: [{ type: 'text', text }] }, 't', policy, '2026-07-28').result.structuredContent;
}

describe('schema-guided coercion follows refs as a validator resolves them', () => {
  it('an $anchor ref', () => {
    expect(served({ type: 'array', items: { $ref: '#row' }, $defs: { r: { $anchor: 'row', ...ROW } } })).toEqual([{ id: 1, name: 'a' }]);
  });

  it('a ref by the root $id, and a draft-07 #name id', () => {
    expect(served({ $id: 'https://example.com/s.json', type: 'array', items: { $ref: 's.json#/$defs/r' }, $defs: { r: ROW } })).toEqual([{ id: 1, name: 'a' }]);
    expect(served({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: { $ref: '#row' }, definitions: { r: { $id: '#row', ...ROW } } })).toEqual([{ id: 1, name: 'a' }]);
  });

  it('a bundled schema file, and a pointer inside it that names its own root', async () => {
    const dir = await tempFiles({
      'gw.yaml': 'upstreams:\n  up:\n    command: node\n    args: [x.js]\n    tools:\n      t: { outputSchemaFile: list.json, extract: { format: table } }\n',
      'list.json': JSON.stringify({ type: 'array', items: { $ref: 'row.json' } }),
      'row.json': JSON.stringify({ type: 'object', properties: { id: { $ref: '#/$defs/n' } }, $defs: { n: { type: 'integer' } } }),
    });
    const loaded = await loadConfig(join(dir, 'gw.yaml'));
    const out = rewriteToolCall({ content: [{ type: 'text', text: TABLE }] }, 't', loaded.policies.get('up')!, '2026-07-28').result;
    expect(out.structuredContent).toEqual([{ id: 1, name: 'a' }]);
  });

  it('resolves nothing outside the document, and a local pointer as before', () => {
    const root = { $defs: { a: { type: 'integer' } }, items: { $ref: 'https://elsewhere.example/x.json' } };
    expect(resolveRef(root, root.items, root.items.$ref)).toBeUndefined();
    expect(resolveRef(root, root, '#/$defs/a')).toEqual({ type: 'integer' });
    expect(resolveRef(root, root, '#nothing')).toBeUndefined();
  });
});
