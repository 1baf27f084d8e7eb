/** The `record:` key: per upstream and in `defaults`, merged key by key, `dir` relative to the config file. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../config/helpers.js';

const upstream = (record: string): string => `upstreams:
  w:
    url: http://127.0.0.1:9/mcp
${record}`;

describe('record config', () => {
  it('is off by default', async () => {
    const { loaded } = await load(upstream(''));
    expect(loaded.config.upstreams.w?.record).toBeUndefined();
  });

  it('resolves dir against the config file and fills in the limits', async () => {
    const { dir, loaded } = await load(upstream('    record: { dir: rec }'));
    expect(loaded.config.upstreams.w?.record).toEqual({ dir: join(dir, 'rec'), maxPerTool: 20, maxBytes: 262144 });
  });

  it('inherits defaults.record key by key, and maxPerTool 0 turns one upstream off', async () => {
    const yaml = `defaults:
  record: { dir: /var/rec, maxBytes: 1000 }
upstreams:
  a: { url: "http://127.0.0.1:9/a" }
  b: { url: "http://127.0.0.1:9/b", record: { maxPerTool: 3 } }
  c: { url: "http://127.0.0.1:9/c", record: { maxPerTool: 0 } }
`;
    const { loaded } = await load(yaml);
    expect(loaded.config.upstreams.a?.record).toEqual({ dir: '/var/rec', maxPerTool: 20, maxBytes: 1000 });
    expect(loaded.config.upstreams.b?.record).toEqual({ dir: '/var/rec', maxPerTool: 3, maxBytes: 1000 });
    expect(loaded.config.upstreams.c?.record).toBeUndefined();
  });

  it('needs a dir somewhere, and rejects unknown keys and bad numbers at their line', async () => {
    const missing = await problemsOf(upstream('    record: { maxPerTool: 5 }'));
    expect(missing.problems.map((p) => p.message)).toEqual(['upstreams.w.record: `record` needs a `dir` (here or in `defaults.record`)']);
    const noDefaultDir = await problemsOf(`defaults:\n  record: { maxPerTool: 5 }\n${upstream('')}`);
    expect(noDefaultDir.problems.map((p) => p.message)).toEqual(['defaults.record: missing required key "dir"']);
    const bad = await problemsOf(upstream('    record: { dir: x, maxPerTol: 5, maxBytes: 0 }'));
    expect(bad.problems.map((p) => `${p.line}: ${p.message}`).sort()).toEqual([
      '4: upstreams.w.record.maxBytes: must be >= 1',
      '4: upstreams.w.record: unknown key "maxPerTol" (did you mean "maxPerTool"?)',
    ]);
  });
});
