/**
 * `mcp-retrofit check` as the built CLI on a file with several problems: one run prints every one of them as
 * FILE:LINE:COL, each with the hint that fits what was written, and exits 1; the same file fixed (its schema
 * `$ref`ing another schema file) prints ok.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';

it('prints every problem with a fitting hint in one run; the fixed file is ok', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-check-all-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'weather.json'), JSON.stringify({ type: 'object', properties: { temp: { $ref: 'units.yaml#/$defs/celsius' } } }));
  writeFileSync(join(dir, 'units.yaml'), '$defs:\n  celsius: { type: number }\n');
  const broken = [
    'upstreams:',
    '  weather:',
    '    url: http://127.0.0.1:9000/mcp',
    '    tools:',
    '      get_weather:',
    '        outputSchemaFile: weather.json',
    '        select: /data',
    '        extract: { format: jsn }',
    '      get_report:',
    "        extract: { format: regex, pattern: '(', flags: x }",
  ];
  const file = join(dir, 'gw.yaml');
  writeFileSync(file, `${broken.join('\n')}\n`);

  const run = await runCli(['check', '--config', file]);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.split('\n').filter(Boolean)).toEqual([
    `${file}:7:9 upstreams.weather.tools.get_weather: unknown key "select" (it belongs under \`extract\`)`,
    `${file}:8:28 upstreams.weather.tools.get_weather.extract.format: must be one of auto, json, yaml, regex, table, csv, list (did you mean "json"?)`,
    `${file}:10:44 upstreams.weather.tools.get_report.extract.pattern: invalid regular expression: /(/: Unterminated group`,
    `${file}:10:56 upstreams.weather.tools.get_report.extract.flags: may only hold the flags m, i, s, u, each once ("x" is not a flag)`,
  ]);

  const fixed = [...broken.slice(0, 6), '        extract: { format: json, select: /data }', "      get_report:", "        extract: { format: regex, pattern: '(?<t>\\d+)', flags: i }"];
  writeFileSync(file, `${fixed.join('\n')}\n`);
  const ok = await runCli(['check', '--config', file]);
  expect(ok).toMatchObject({ code: 0, stdout: 'ok\n', stderr: '' });
});
