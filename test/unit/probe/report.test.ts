/** The lines `check --probe` prints for one upstream's tools, and its warnings for keys that govern nothing. */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import type { ToolConfig } from '../../../src/config/types.js';
import { reportUpstream, unmatchedKeys } from '../../../src/probe/report.js';
import { upstreamWith } from '../retrofit/helpers.js';

const CONFIG_FILE = '/srv/gw/gateway.yaml';
const DRAFT7 = 'http://json-schema.org/draft-07/schema#';

function report(tools: Record<string, ToolConfig>, listed: JsonObject[]) {
  return reportUpstream(listed, upstreamWith(tools), Object.keys(tools), CONFIG_FILE);
}

describe('reportUpstream', () => {
  it('one line per tool, in list order: repairs, then the retrofit', () => {
    const { lines, warnings } = report(
      {
        directory_tree: { outputSchema: { type: 'array' }, outputSchemaFile: '/srv/gw/schemas/tree.json', extract: { format: 'json' } },
        'list_*': { outputSchema: { type: 'array' }, extract: { format: 'regex', pattern: '(?<n>\\w+)', all: true }, legacyRoots: 'drop' },
        get_info: { outputSchema: { type: 'object' }, extract: { format: 'yaml' }, onInvalid: 'passthrough' },
        write_file: { inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, inputSchemaFile: '/srv/gw/in/write.yaml' },
        move_file: { inputSchema: { type: 'object' } },
      },
      [
        { name: 'read_file', inputSchema: { $schema: DRAFT7 } },
        { name: 'directory_tree', inputSchema: { $schema: DRAFT7 } },
        { name: 'list_directory', inputSchema: { type: 'object' } },
        { name: 'get_info', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: {} } },
        { name: 'write_file', inputSchema: { $schema: DRAFT7 } },
        { name: 'move_file', inputSchema: { type: 'object' } },
        { name: 'stats', inputSchema: { type: 'object' }, outputSchema: { type: 'nope' } },
        { name: 'ping', inputSchema: { type: 'object' } },
        { name: 'native_object', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
        { name: 'native_array', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } },
      ],
    );
    expect(lines).toEqual([
      'u/read_file: repair input_type_added (root type "object" added)',
      'u/directory_tree: repair input_type_added (root type "object" added); outputSchema from schemas/tree.json, extract json, non-object root wrapped as {result} for 2025-06-18/2025-11-25 clients',
      'u/list_directory: outputSchema inline (key "list_*"), extract regex, non-object root dropped for 2025-06-18/2025-11-25 clients',
      "u/get_info: outputSchema inline replacing the upstream's, extract yaml, shadow (onInvalid: passthrough): clients are shown no schema",
      'u/write_file: repair input_replaced (inputSchema from in/write.yaml)',
      'u/move_file: repair input_replaced (configured inline inputSchema)',
      expect.stringMatching(/^u\/stats: repair output_removed \(.+\)$/),
      'u/ping: unchanged',
      'u/native_object: native outputSchema kept',
      'u/native_array: native outputSchema kept, non-object root wrapped as {result} for 2025-06-18/2025-11-25 clients',
    ]);
    expect(warnings).toEqual([]);
  });

  it('a key that matches no listed tool is a warning, exact or glob', () => {
    const { warnings } = report(
      { read_fil: { outputSchema: { type: 'string' } }, 'nothing_*': { outputSchema: { type: 'object' } }, read_file: { outputSchema: { type: 'string' } } },
      [{ name: 'read_file', inputSchema: { type: 'object' } }],
    );
    expect(warnings).toEqual([
      { key: 'read_fil', message: 'matches no tool listed by "u" (did you mean "read_file"?)' },
      { key: 'nothing_*', message: 'matches no tool listed by "u"' },
    ]);
  });
});

describe('unmatchedKeys', () => {
  it('a glob whose tools are all taken by exact keys or earlier globs governs nothing, and says by whom', () => {
    const tools: Record<string, ToolConfig> = {
      'list_*': { outputSchema: { type: 'array' } },
      list_directory: { outputSchema: { type: 'array' } },
      'list_dir*': { outputSchema: { type: 'object' } },
    };
    const names = ['list_directory', 'list_directory_with_sizes', 'read_file'];
    expect(unmatchedKeys(Object.keys(tools), names, upstreamWith(tools))).toEqual([
      { key: 'list_dir*', message: 'governs no listed tool: the tools it matches are governed by "list_directory", "list_*"' },
    ]);
  });

  it('no keys, or no tools at all: every key is reported, nothing else', () => {
    const tools: Record<string, ToolConfig> = { a: { outputSchema: { type: 'object' } } };
    expect(unmatchedKeys([], ['a'], upstreamWith({}))).toEqual([]);
    expect(unmatchedKeys(['a'], [], upstreamWith(tools))).toEqual([{ key: 'a', message: 'matches no tool listed by "u"' }]);
  });
});
