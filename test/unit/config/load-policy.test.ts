/** Problems found while compiling tool policies (src/policy/compile.ts) are placed at FILE:LINE:COL. */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { problemsOf } from './helpers.js';

const head = ['upstreams:', '  w:', '    url: http://x/mcp', '    tools:'];

describe('policy compile problems', () => {
  test('an inline outputSchema that does not compile points into the config file', async () => {
    const { dir, problems } = await problemsOf(`${[...head, '      t:', '        outputSchema:', '          type: strnig'].join('\n')}\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: join(dir, 'config.yaml'), line: 7, col: 17 });
    expect(problems[0]?.message).toMatch(/^upstreams\.w\.tools\.t\.outputSchema.*outputSchema does not compile/);
  });

  test('a schema file that does not compile points into that file', async () => {
    const schema = '{\n  "type": "object",\n  "properties": {\n    "a": { "type": "strnig" }\n  }\n}\n';
    const { dir, problems } = await problemsOf(`${[...head, '      t:', '        outputSchemaFile: s.json'].join('\n')}\n`, {}, { 's.json': schema });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: join(dir, 's.json'), line: 4, col: 20 });
    expect(problems[0]?.message).toMatch(/^properties\.a\.type: /);
    expect(problems[0]?.message).toContain('outputSchema does not compile');
  });

  test('an invalid regular expression points at its pattern', async () => {
    const { dir, problems } = await problemsOf(`${[...head, '      t:', '        extract:', '          format: regex', '          pattern: "(unclosed"'].join('\n')}\n`);
    expect(problems).toEqual([
      expect.objectContaining({ file: join(dir, 'config.yaml'), line: 8, col: 20, message: expect.stringContaining('invalid regular expression') as unknown }),
    ]);
  });
});
