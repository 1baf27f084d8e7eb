/**
 * A reload that changed an outputSchema under the same `$id` served it under that id: connected clients keep
 * what they compiled by `$id`, so they went on validating against the old content. Each load now starts from
 * the ids the running generation served (ServedIds) and serves changed content under a new id, with the refs
 * that name it following; the first content keeps its id, and a configured id still names one schema.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { tempFiles } from './helpers.js';

const config = (tools: string): string => `upstreams:\n  up:\n    command: node\n    args: [x.js]\n    tools:\n${tools}`;

describe('a reload serves a changed schema under a new $id', () => {
  it('an embedded file changed: its id and every ref to it change, and the tool validates the new content', async () => {
    const dir = await tempFiles({
      'gw.yaml': config('      t: { outputSchema: { type: object, properties: { p: { $ref: "defs.json#/$defs/n" } } }, extract: { format: json } }\n'),
      'defs.json': JSON.stringify({ $defs: { n: { type: 'integer' } } }),
    });
    const first = await loadConfig(join(dir, 'gw.yaml'));
    const same = await loadConfig(join(dir, 'gw.yaml'), { servedIds: first.servedIds! });
    expect(JSON.stringify(same.config.upstreams.up!.tools.t!.outputSchema)).toBe(JSON.stringify(first.config.upstreams.up!.tools.t!.outputSchema));

    await writeFile(join(dir, 'defs.json'), JSON.stringify({ $defs: { n: { type: 'string' } } }));
    const second = await loadConfig(join(dir, 'gw.yaml'), { servedIds: first.servedIds! });
    const before = JSON.stringify(first.config.upstreams.up!.tools.t!.outputSchema);
    const after = JSON.stringify(second.config.upstreams.up!.tools.t!.outputSchema);
    const oldId = /"\$id":"([^"]+)"/.exec(before)![1]!;
    const newId = /"\$id":"([^"]+)"/.exec(after)![1]!;
    expect(newId).not.toBe(oldId);
    expect(newId.startsWith(`${oldId}?mcp-retrofit-schema=`)).toBe(true);
    expect(after).toContain(`"$ref":"${newId}#/$defs/n"`);
    const out = rewriteToolCall({ content: [{ type: 'text', text: '{"p":"x"}' }] }, 't', second.policies.get('up')!, '2025-11-25').result;
    expect(out.structuredContent).toEqual({ p: 'x' });
  });

  it('one configured $id with two contents in one generation is still a clash', async () => {
    const schema = (type: string): string => `{ $id: "https://example.com/s.json", type: object, properties: { v: { type: ${type} } } }`;
    const dir = await tempFiles({ 'gw.yaml': config(`      a: { outputSchema: ${schema('integer')} }\n`) });
    const first = await loadConfig(join(dir, 'gw.yaml'));
    await writeFile(join(dir, 'gw.yaml'), config(`      a: { outputSchema: ${schema('string')} }\n      b: { outputSchema: ${schema('boolean')} }\n`));
    const err = await loadConfig(join(dir, 'gw.yaml'), { servedIds: first.servedIds! }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as ConfigError).problems.map((p) => p.message))).toContain('$id "https://example.com/s.json" names a different schema');
  });
});
