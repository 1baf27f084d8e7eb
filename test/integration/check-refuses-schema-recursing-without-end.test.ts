/**
 * `mcp-retrofit check` as the built CLI on an outputSchema that can never validate anything
 * (`{type: object, $ref: "#"}`): it used to print ok, and the gateway then turned every result of the tool
 * into an error. It now exits 1 with FILE:LINE:COL and what recurses; a recursive tree schema is ok.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';

it('exits 1 naming the schema that recurses at the same place; a tree schema is ok', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-check-selfref-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'gw.yaml');
  const head = ['upstreams:', '  a:', '    command: node', '    tools:', '      t:'];
  writeFileSync(file, `${[...head, '        outputSchema: { type: object, $ref: "#" }'].join('\n')}\n`);

  const run = await runCli(['check', '--config', file]);
  expect(run).toMatchObject({ code: 1, stdout: '' });
  expect(run.stderr.split('\n').filter(Boolean)).toEqual([
    `${file}:6:9 upstreams.a.tools.t.outputSchema: $ref "#" leads back to this schema at the same place in the result (# -> #): validating anything would recurse without end`,
  ]);

  writeFileSync(file, `${[...head, '        outputSchema: { type: object, properties: { children: { type: array, items: { $ref: "#" } } } }'].join('\n')}\n`);
  const ok = await runCli(['check', '--config', file]);
  expect(ok).toMatchObject({ code: 0, stdout: 'ok\n', stderr: '' });
});
