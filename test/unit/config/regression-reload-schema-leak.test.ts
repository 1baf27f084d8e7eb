/**
 * Regression: every config load (each reload, the console's apply check) compiled its tools' schemas into
 * module-wide ajv instances, which keep every schema they ever compiled: the demo config leaked ~40 KB per
 * reload, without limit. A generation's validators must be freed once nobody holds them, and loading the same
 * config again and again must not grow the heap. So must the offload worker's compiles (compileTool alone).
 */
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import { loadConfig, type LoadedConfig } from '../../../src/config/load.js';
import { DEFAULTS, type ToolConfig } from '../../../src/config/types.js';
import { compileTool } from '../../../src/retrofit/compiled.js';
import { check, type Validator } from '../../../src/retrofit/validate.js';
import { tempFiles } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const LOADS = 300;
/**
 * Heap a load may leave behind on average. The leak was ~30 KB a load of this config (40 KB of the demo's);
 * caches of compiled code take some hundreds of KB over the first hundreds of loads, then level off.
 */
const BYTES_PER_LOAD = 8 * 1024;

const CONFIG = `upstreams:
  a:
    url: http://127.0.0.1:9000/mcp
    tools:
      weather:
        outputSchemaFile: schemas/weather.json
        removeAdditional: true
      forecast:
        extract: { format: json }
        removeAdditional: all
        outputSchema:
          type: object
          properties:
            city: { type: string, minLength: 1 }
            when: { type: string, format: date-time }
            days: { type: array, items: { type: object, properties: { high: { type: number }, low: { type: number } }, required: [high, low] } }
          required: [city, days]
      count:
        outputSchema: { type: integer, minimum: 0 }
      search:
        inputSchema: { type: object, properties: { q: { type: string } }, required: [q] }
        outputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: array, items: { type: string, format: uri } }
`;

const FILES = {
  'schemas/weather.json': JSON.stringify({ type: 'object', properties: { temp: { $ref: 'units.yaml#/$defs/celsius' }, city: { type: 'string' } }, required: ['temp'] }),
  'schemas/units.yaml': '$defs:\n  celsius: { type: number, minimum: -273.15 }\n',
};

/** The heap after a full collection, in a later task: a WeakRef keeps its target until the task it was made in ends. */
async function heapAfterGc(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Every validator a loaded config holds, after each has checked a value that fails (which compiles its twin). */
function validatorsOf(loaded: LoadedConfig): Validator[] {
  const policy = loaded.policies.get('a')!;
  const out: Validator[] = [];
  for (const key of policy.keys ?? []) {
    const output = policy.resolve(key)?.compiled?.output;
    if (!output) continue;
    for (const v of [output.validate, output.validateNative, output.confirm]) if (v) out.push(v);
  }
  for (const v of out) expect(check(v, { not: 'valid' }).ok).toBe(false);
  return out;
}

describe('regression: a config load leaks its compiled schemas', () => {
  test(`${LOADS} loads of the same config (tools, formats, a cross-file $ref) leave the heap where it was; the first generation's validators are collected`, async () => {
    const dir = await tempFiles({ 'config.yaml': CONFIG, ...FILES });
    const file = join(dir, 'config.yaml');
    // The first generation, held only through weak references from here on.
    const refs = validatorsOf(await loadConfig(file, { env: {} })).map((v) => new WeakRef(v));
    expect(refs.length).toBeGreaterThanOrEqual(6);
    // Warm up what is compiled once per process (ajv's meta-schemas, module state).
    for (let i = 0; i < 20; i++) validatorsOf(await loadConfig(file, { env: {} }));
    const before = await heapAfterGc();
    for (let i = 0; i < LOADS; i++) validatorsOf(await loadConfig(file, { env: {} }));
    const grown = (await heapAfterGc()) - before;
    expect.soft(refs.filter((r) => r.deref() !== undefined).length, 'validators of the first generation still reachable').toBe(0);
    expect(grown, `heap grew ${Math.round(grown / 1024)} KB over ${LOADS} loads`).toBeLessThan(LOADS * BYTES_PER_LOAD);
    // Before the fix a load took ~100 ms here: the meta-schema was compiled again for each cross-file schema.
  }, 120_000);

  test(`compileTool ${LOADS} times (as offload workers compile tools) frees what each compile made once it is dropped`, async () => {
    const defaults = { onInvalid: DEFAULTS.onInvalid, legacyRoots: DEFAULTS.legacyRoots, coerce: DEFAULTS.coerce };
    const tool = (): ToolConfig => ({ removeAdditional: true, outputSchema: { type: 'object', properties: { a: { type: 'string', format: 'email' }, b: { type: 'number' } }, required: ['a'] } });
    const compile = (): Validator => {
      const output = compileTool(tool(), defaults).tool.output!;
      expect(check(output.validate, { b: 'x' }).ok).toBe(false);
      return output.validate;
    };
    const ref = new WeakRef(compile());
    for (let i = 0; i < 20; i++) compile();
    const before = await heapAfterGc();
    for (let i = 0; i < LOADS; i++) compile();
    const grown = (await heapAfterGc()) - before;
    expect.soft(ref.deref(), 'the first compile\'s validator is still reachable').toBeUndefined();
    // Each compile left ~16 KB before the fix.
    expect(grown, `heap grew ${Math.round(grown / 1024)} KB over ${LOADS} compiles`).toBeLessThan(LOADS * 4096);
  });
});
