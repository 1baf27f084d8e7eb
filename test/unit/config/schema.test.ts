/** The config JSON Schema: shipped file up to date, documented everywhere, a valid 2020-12 schema. */
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_SCHEMA, renderSchemaFile } from '../../../src/config/schema.js';

describe('CONFIG_SCHEMA', () => {
  test('mcp-retrofit.schema.json is up to date (run `npm run schema` after changing src/config/schema.ts)', async () => {
    expect(await readFile('mcp-retrofit.schema.json', 'utf8')).toBe(renderSchemaFile());
  });

  test('every property has a description', () => {
    const missing: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (node === null || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      const props = n.properties;
      if (props && typeof props === 'object') {
        for (const [key, value] of Object.entries(props)) {
          const v = value as Record<string, unknown>;
          // Forbidden keys (`not: {}`) and if/then refinements repeat a property without redefining it.
          const isRefinement = 'not' in v || where.includes('/if');
          if (!isRefinement && typeof v.description !== 'string') missing.push(`${where}/properties/${key}`);
        }
      }
      for (const [key, value] of Object.entries(n)) walk(value, `${where}/${key}`);
    };
    walk(CONFIG_SCHEMA, '#');
    expect(missing).toEqual([]);
  });

  test('compiles in a stock ajv (as editors and other tools will use it)', () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(renderSchemaFile()) as object);
    expect(validate({ upstreams: { a: { url: 'http://x/mcp' } } })).toBe(true);
    expect(validate({ upstreams: { a: { url: 'http://x/mcp', command: 'node' } } })).toBe(false);
  });

  test('accepts the contract example (after expansion)', async () => {
    const text = await readFile('test/fixtures/config/contract-example.yaml', 'utf8');
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(CONFIG_SCHEMA);
    expect(validate(parse(text.replaceAll('${GATEWAY_TOKEN}', 't').replaceAll('${WEATHER_TOKEN}', 'w')))).toBe(true);
  });

  test('additionalProperties is false on every object of the config itself', () => {
    const open: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (node === null || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      // if/then/else refinements add rules to objects defined elsewhere; they must not close them.
      const refinement = /\/(if|then|else)(\/|$)/.test(where);
      if (n.type === 'object' && n.properties !== undefined && n.additionalProperties !== false && !refinement) open.push(where);
      for (const [key, value] of Object.entries(n)) walk(value, `${where}/${key}`);
    };
    walk(CONFIG_SCHEMA, '#');
    expect(open).toEqual([]);
  });
});
