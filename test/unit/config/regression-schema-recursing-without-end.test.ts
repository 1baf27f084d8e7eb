/**
 * Regression: an outputSchema that can never validate anything (`{type: object, $ref: "#"}`: the ref leads back
 * to the same schema at the same place in the result) loaded as ok, and then every tools/call result became an
 * isError ("cannot be validated (Maximum call stack size exceeded)"); pure ref cycles were refused, but only as
 * "Maximum call stack size exceeded". Both are now refused at load with what recurses, at FILE:LINE:COL, the
 * cycle followed across schema files too; a recursive tree schema still loads and validates.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULTS } from '../../../src/config/types.js';
import { compileTool } from '../../../src/retrofit/compiled.js';
import { check } from '../../../src/retrofit/validate.js';
import { load, problemsOf } from './helpers.js';

const config = (tool: string): string => `upstreams:\n  a:\n    url: http://127.0.0.1:9000/mcp\n    tools:\n      t:\n        ${tool}\n`;
const ENDLESS = 'validating anything would recurse without end';

describe('outputSchemas that recurse without end are refused at load', () => {
  test('{type: object, $ref: "#"}: at the outputSchema key, saying what recurses', async () => {
    const { dir, problems } = await problemsOf(config('outputSchema: { type: object, $ref: "#" }'));
    expect(problems).toEqual([
      { file: join(dir, 'config.yaml'), line: 6, col: 9, message: `upstreams.a.tools.t.outputSchema: $ref "#" leads back to this schema at the same place in the result (# -> #): ${ENDLESS}` },
    ]);
  });

  test('a property whose $ref points to itself: at that property, not "Maximum call stack size exceeded"', async () => {
    const { dir, problems } = await problemsOf(config('outputSchema: { type: object, properties: { a: { $ref: "#/properties/a" } } }'));
    expect(problems).toEqual([
      {
        file: join(dir, 'config.yaml'),
        line: 6,
        col: 53,
        message: `upstreams.a.tools.t.outputSchema.properties.a: $ref "#/properties/a" leads back to this schema at the same place in the result (#/properties/a -> #/properties/a): ${ENDLESS}`,
      },
    ]);
  });

  test('{"$ref": "#"} in a schema file: in that file', async () => {
    const { dir, problems } = await problemsOf(config('outputSchemaFile: self.json'), {}, { 'self.json': '{"$ref":"#"}' });
    expect(problems).toEqual([{ file: join(dir, 'self.json'), line: 1, col: 1, message: `$ref "#" leads back to this schema at the same place in the result (# -> #): ${ENDLESS}` }]);
  });

  test('a.json <-> b.json: the cycle is followed across the bundled files and reported in the file it closes on', async () => {
    const { dir, problems } = await problemsOf(config('outputSchemaFile: a.json'), {}, { 'a.json': '{"$ref":"b.json"}', 'b.json': '{\n  "$ref": "a.json"\n}' });
    expect(problems).toEqual([
      { file: join(dir, 'b.json'), line: 1, col: 1, message: `$ref "b.json" leads back to this schema at the same place in the result (b.json# -> a.json# -> b.json#): ${ENDLESS}` },
    ]);
  });

  test('a tree schema (children.items.$ref: "#") loads, and validates nested values', async () => {
    const tree = '{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name"]}';
    const { loaded } = await load(config('outputSchemaFile: tree.json'), {}, { 'tree.json': tree });
    const { tool, errors } = compileTool(structuredClone(loaded.config.upstreams.a!.tools.t!), { onInvalid: DEFAULTS.onInvalid, legacyRoots: DEFAULTS.legacyRoots, coerce: DEFAULTS.coerce });
    expect(errors).toEqual([]);
    expect(check(tool.output!.validate, { name: 'a', children: [{ name: 'b', children: [] }] }).ok).toBe(true);
    expect(check(tool.output!.validate, { name: 'a', children: [{ children: [] }] }).ok).toBe(false);
  });
});
