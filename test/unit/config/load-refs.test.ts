/**
 * Cross-file `$ref`s between schema files: resolved relative to the referring file (JSON or YAML, chains and
 * cycles), bundled into one self-contained schema that compiles without any file (as the offload worker
 * compiles it), and never fetched over the network.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SchemaFiles } from '../../../src/config/files.js';
import type { ToolConfig } from '../../../src/config/types.js';
import { DEFAULTS } from '../../../src/config/types.js';
import { compileTool } from '../../../src/retrofit/compiled.js';
import { check } from '../../../src/retrofit/validate.js';
import { load, problemsOf, tempFiles } from './helpers.js';

const config = (tool: string): string => `upstreams:\n  a:\n    url: http://127.0.0.1:9000/mcp\n    tools:\n      t: ${tool}\n`;
const defaults = { onInvalid: DEFAULTS.onInvalid, legacyRoots: DEFAULTS.legacyRoots, coerce: DEFAULTS.coerce };

function toolOf(loaded: Awaited<ReturnType<typeof load>>['loaded']): ToolConfig {
  return loaded.config.upstreams.a!.tools.t!;
}

/** Compiles the tool as the offload worker does: from its config alone, after a structured clone. */
function validatorOf(tool: ToolConfig): (value: unknown) => boolean {
  const { tool: compiled, errors } = compileTool(structuredClone(tool), defaults);
  expect(errors).toEqual([]);
  return (value) => check(compiled.output!.validate, value).ok;
}

describe('schema files that $ref other schema files', () => {
  test('other.yaml#/$defs/x resolves relative to the referring file, and the bundle needs no file afterwards', async () => {
    const { dir, loaded } = await load(config('{ outputSchemaFile: schemas/weather.json }'), {}, {
      'schemas/weather.json': JSON.stringify({ type: 'object', properties: { temp: { $ref: 'units.yaml#/$defs/celsius' } }, required: ['temp'] }),
      'schemas/units.yaml': '$defs:\n  celsius: { type: number, minimum: -273.15 }\n',
    });
    const tool = toolOf(loaded);
    expect(tool.outputSchemaFile).toBe(join(dir, 'schemas/weather.json'));
    const served = JSON.stringify(tool.outputSchema);
    expect(served).not.toContain(dir);
    expect(served).toMatch(/"\$ref":"https:\/\/mcp-retrofit\.invalid\/schema-files\/[0-9a-f]{16}\/units\.yaml#\/\$defs\/celsius"/);
    await rm(dir, { recursive: true, force: true });
    const valid = validatorOf(tool);
    expect(valid({ temp: 17 })).toBe(true);
    expect(valid({ temp: -300 })).toBe(false);
    expect(valid({ temp: 'warm' })).toBe(false);
  });

  test('./dir/x.json chains resolve each against its own file; a file named twice is embedded once', async () => {
    const { loaded } = await load(config('{ outputSchemaFile: s/root.json }'), {}, {
      's/root.json': JSON.stringify({ type: 'object', properties: { a: { $ref: './dir/x.json' }, b: { $ref: 'dir/x.json#/properties/n' } } }),
      's/dir/x.json': JSON.stringify({ type: 'object', properties: { n: { $ref: '../common.yaml' } } }),
      's/common.yaml': 'type: integer\n',
    });
    const schema = toolOf(loaded).outputSchema as { $defs: Record<string, unknown> };
    expect(Object.keys(schema.$defs).sort()).toEqual(['mcp-retrofit:common.yaml', 'mcp-retrofit:x.json']);
    const valid = validatorOf(toolOf(loaded));
    expect(valid({ a: { n: 1 }, b: 2 })).toBe(true);
    expect(valid({ a: { n: 'one' } })).toBe(false);
    expect(valid({ b: 2.5 })).toBe(false);
  });

  test('a cycle between two files validates a recursive value', async () => {
    const { loaded } = await load(config('{ outputSchemaFile: tree.json }'), {}, {
      'tree.json': JSON.stringify({ type: 'object', properties: { name: { type: 'string' }, children: { $ref: 'children.json' } }, required: ['name'] }),
      'children.json': JSON.stringify({ type: 'array', items: { $ref: 'tree.json' } }),
    });
    const valid = validatorOf(toolOf(loaded));
    expect(valid({ name: '/', children: [{ name: 'src', children: [{ name: 'a.ts' }] }] })).toBe(true);
    expect(valid({ name: '/', children: [{ name: 7 }] })).toBe(false);
  });

  test('an inline schema in the config refers to files relative to the config file', async () => {
    const { loaded } = await load(config('{ outputSchema: { type: array, items: { $ref: "schemas/city.json" } } }'), {}, {
      'schemas/city.json': JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
    });
    const tool = toolOf(loaded);
    const valid = validatorOf(tool);
    expect(valid([{ city: 'Oslo' }])).toBe(true);
    expect(valid([{}])).toBe(false);
    // The object-only clients' wrapped form still resolves (compileTool proves it compiles).
    expect(compileTool(tool, defaults).tool.output?.wrapped).toBeDefined();
  });

  test('regression: a file with its own $id is embedded under the gateway id, so a tool serving it whole does not clash', async () => {
    const id = 'https://example.invalid/point.json';
    const point = { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: id, type: 'object', properties: { x: { type: 'integer' }, y: { $ref: `${id}#/properties/x` } }, required: ['x'] };
    const yaml = 'upstreams:\n  a:\n    url: http://127.0.0.1:9000/mcp\n    tools:\n      whole: { outputSchemaFile: point.json }\n'
      + '      ref: { outputSchema: { type: object, properties: { p: { $ref: point.json }, q: { $ref: "point.json#/properties/x" } } } }\n';
    const { loaded } = await load(yaml, {}, { 'point.json': JSON.stringify(point) });
    const tools = loaded.config.upstreams.a!.tools;
    expect(tools.whole!.outputSchema).toEqual(point);
    const served = tools.ref!.outputSchema as { properties: { p: { $ref: string }; q: { $ref: string } }; $defs: Record<string, { $id: string }> };
    const embedded = served.$defs['mcp-retrofit:point.json']!;
    expect(embedded.$id).toMatch(/^https:\/\/mcp-retrofit\.invalid\/schema-files\/[0-9a-f]{16}\/point\.json$/);
    // Refs to the file, by path or (inside it) by its own $id, name the id it is embedded under.
    const { $schema: _dropped, ...rest } = point;
    expect(embedded).toEqual({ ...rest, $id: embedded.$id, properties: { ...point.properties, y: { $ref: `${embedded.$id}#/properties/x` } } });
    expect(served.properties.p.$ref).toBe(embedded.$id);
    expect(served.properties.q.$ref).toBe(`${embedded.$id}#/properties/x`);
    const valid = validatorOf(tools.ref!);
    expect(valid({ p: { x: 1, y: 2 }, q: 2 })).toBe(true);
    expect(valid({ p: { x: 'one' } })).toBe(false);
    expect(valid({ p: { x: 1, y: 'two' } })).toBe(false);
    expect(valid({ q: 'two' })).toBe(false);
  });

  test('a schema that refers to no file is left exactly as written', async () => {
    const schema = { type: 'object', $defs: { x: { type: 'string' } }, properties: { a: { $ref: '#/$defs/x' } } };
    const { loaded } = await load(config(`{ outputSchema: ${JSON.stringify(schema)} }`));
    expect(toolOf(loaded).outputSchema).toEqual(schema);
  });
});

describe('$ref problems are reported where the $ref is written', () => {
  test.each([
    ['a network $ref', { type: 'object', properties: { a: { $ref: 'https://example.com/x.json' } } }, {}, '5:15', 'properties.a.$ref: $ref "https://example.com/x.json": network references are never fetched'],
    ['a missing file', { type: 'object', properties: { a: { $ref: 'nope.yaml#/x' } } }, {}, '5:15', 'properties.a.$ref: $ref "nope.yaml#/x": cannot read schema file'],
    ['a pointer the file does not have', { type: 'object', properties: { a: { $ref: 'defs.json#/$defs/nope' } } }, { 'defs.json': '{"$defs": {"yes": {}}}' }, '5:15', 'properties.a.$ref: $ref "defs.json#/$defs/nope": there is no #/$defs/nope in defs.json'],
  ])('%s', async (_name, schema, others, where, text) => {
    const { dir, problems } = await problemsOf(config('{ outputSchemaFile: s.json }'), {}, { 's.json': JSON.stringify(schema, null, 2), ...others });
    const shown = problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
    expect(shown).toEqual([expect.stringContaining(`${join(dir, 's.json')}:${where} ${text}`)]);
  });

  test('a schema error inside a referenced file is reported at its line in that file', async () => {
    const { dir, problems } = await problemsOf(config('{ outputSchemaFile: s.json }'), {}, {
      's.json': JSON.stringify({ type: 'object', properties: { a: { $ref: 'defs.yaml#/$defs/x' } } }),
      'defs.yaml': '$defs:\n  x:\n    type: nope\n',
    });
    expect(problems.map((p) => `${p.file}:${p.line}:${p.col}`)).toEqual([`${join(dir, 'defs.yaml')}:3:11`]);
    expect(problems[0]?.message).toMatch(/^\$defs\.x\.type: outputSchema does not compile/);
  });
});

test('SchemaFiles reads a file once however often it is asked for', async () => {
  const dir = await tempFiles({ 'x.json': '{}' });
  const files = new SchemaFiles();
  const first = files.read(join(dir, 'x.json'));
  expect(files.read(join(dir, 'x.json'))).toBe(first);
  expect(await first).toMatchObject({ ok: true, schema: {} });
});
