/**
 * The issue-16 keys in a config file: extract.format table/csv/list, delimiter, removeAdditional (tool and
 * defaults), with their problems reported at FILE:LINE:COL, misplaced keys told where they belong.
 */
import { describe, expect, it } from 'vitest';
import { load, problemsOf } from './helpers.js';

const head = ['upstreams:', '  a:', '    url: http://127.0.0.1:9000/mcp', '    tools:', '      t:', '        outputSchema: { type: array }'];
const file = (...lines: string[]) => [...head, ...lines].join('\n');

describe('issue-16 config keys', () => {
  it('builds table, csv with a delimiter, list with a pattern, and removeAdditional', async () => {
    const { loaded } = await load(
      [
        'defaults: { removeAdditional: all }',
        ...head,
        '        extract: { format: csv, delimiter: "\\t" }',
        '        removeAdditional: true',
        '      l:',
        '        outputSchema: { type: array }',
        '        extract: { format: list, pattern: "(?<name>\\\\w+)" }',
        '      tb:',
        '        extract: { format: table }',
      ].join('\n'),
    );
    const { config, policies } = loaded;
    expect(config.defaults.removeAdditional).toBe('all');
    expect(config.upstreams.a!.tools.t).toMatchObject({ extract: { format: 'csv', delimiter: '\t' }, removeAdditional: true });
    expect(config.upstreams.a!.tools.l!.removeAdditional).toBeUndefined();
    const policy = policies.get('a')!;
    expect(policy.resolve('l')?.compiled?.pattern?.re2).toBeDefined();
    expect(policy.resolve('tb')?.compiled?.isolate).toBeUndefined();
    expect(policy.resolve('t')?.compiled?.output).toMatchObject({ removeText: true, removeNative: true });
    expect(policy.resolve('l')?.compiled?.output).toMatchObject({ removeText: 'all', removeNative: false });
  });

  it.each([
    ['a pattern with format table', ['        extract: { format: table, pattern: x }'], 7, 35, '`pattern` cannot be used with format json, yaml, table or csv'],
    ['all with format list', ['        extract: { format: list, all: true }'], 7, 34, '`all` cannot be used with format list'],
    ['a delimiter outside csv', ['        extract: { format: table, delimiter: ";" }'], 7, 35, '`delimiter` is only for format csv'],
    ['a two-character delimiter', ['        extract: { format: csv, delimiter: ";;" }'], 7, 44, 'must be one character other than a double quote or a line break'],
    ['an unknown format', ['        extract: { format: tsv }'], 7, 28, 'must be one of auto, json, yaml, regex, table, csv, list'],
    ['a bad removeAdditional', ['        removeAdditional: some'], 7, 27, 'must be one of false, true, all'],
    ['delimiter beside extract', ['        delimiter: ","'], 7, 9, 'unknown key "delimiter" (it belongs under `extract`)'],
    ['removeAdditional under extract', ['        extract: { format: json, removeAdditional: true }'], 7, 34, "unknown key \"removeAdditional\" (it belongs under `upstreams.a.tools.t` or `defaults`)"],
    ['a typo', ['        removeAditional: true'], 7, 9, 'unknown key "removeAditional" (did you mean "removeAdditional"?)'],
  ])('%s', async (_name, lines, line, col, text) => {
    const { problems } = await problemsOf(file(...lines));
    expect(problems).toContainEqual(expect.objectContaining({ line, col, message: expect.stringContaining(text) }));
  });

  it('a format in defaults is an extract setting, per tool', async () => {
    const { problems } = await problemsOf(['defaults: { format: csv }', 'upstreams: { a: { url: "http://127.0.0.1:1/mcp" } }'].join('\n'));
    expect(problems).toContainEqual(expect.objectContaining({ line: 1, col: 13, message: expect.stringContaining('unknown key "format" (it belongs under `upstreams.<name>.tools.<name>.extract`)') }));
  });
});
