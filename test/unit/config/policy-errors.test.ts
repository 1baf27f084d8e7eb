/** Policy compilation errors are placed in the config file, or inside the schema file they concern. */
import { describe, expect, test } from 'vitest';
import { policyProblem } from '../../../src/config/policy-errors.js';
import { parseWithPositions, PositionIndex } from '../../../src/config/positions.js';

const config = parseWithPositions(
  ['upstreams:', '  w:', '    url: http://x/mcp', '    tools:', '      t:', '        outputSchema: { type: strnig }', '      f:', '        outputSchemaFile: s.json', '        extract: { format: regex, pattern: "(" }'].join('\n'),
  '/cfg/config.yaml',
);
const schemaFile = parseWithPositions('{\n  "type": "object",\n  "properties": {\n    "a": { "type": "strnig" }\n  }\n}\n', '/cfg/s.json');
const files = new Map([[PositionIndex.pointer(['upstreams', 'w', 'tools', 'f', 'outputSchema']), schemaFile.index]]);

describe('policyProblem', () => {
  test('an inline schema error points into the config file', () => {
    const p = policyProblem({ path: ['upstreams', 'w', 'tools', 't', 'outputSchema', 'type'], message: 'unknown type "strnig"' }, config.index, files);
    expect(p).toEqual({ file: '/cfg/config.yaml', line: 6, col: 31, message: 'upstreams.w.tools.t.outputSchema.type: unknown type "strnig"' });
  });

  test('an error in a schema read from a file points into that file', () => {
    const p = policyProblem({ path: ['upstreams', 'w', 'tools', 'f', 'outputSchema', 'properties', 'a', 'type'], message: 'unknown type' }, config.index, files);
    expect(p).toEqual({ file: '/cfg/s.json', line: 4, col: 20, message: 'properties.a.type: unknown type' });
  });

  test('the file-backed schema root is the file start; outputSchemaFile in the path means the same', () => {
    const p = policyProblem({ path: ['upstreams', 'w', 'tools', 'f', 'outputSchemaFile'], message: 'does not compile' }, config.index, files);
    expect(p).toMatchObject({ file: '/cfg/s.json', line: 1, col: 1 });
  });

  test('a path past the end falls back to the deepest node that exists', () => {
    const p = policyProblem({ path: ['upstreams', 'w', 'tools', 'f', 'outputSchema', 'properties', 'zz', 'type'], message: 'x' }, config.index, files);
    expect(p).toMatchObject({ file: '/cfg/s.json', line: 3, col: 3 });
    const q = policyProblem({ path: ['upstreams', 'w', 'tools', 'f', 'extract', 'pattern'], message: 'invalid regular expression' }, config.index, files);
    expect(q).toMatchObject({ file: '/cfg/config.yaml', line: 9, col: 44 });
  });
});
