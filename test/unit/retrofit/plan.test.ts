import { describe, expect, it } from 'vitest';
import { describePlan, planToolsList } from '../../../src/retrofit/plan.js';
import { upstreamWith } from './helpers.js';

describe('planToolsList', () => {
  const policy = upstreamWith({
    'list_*': { outputSchema: { type: 'array' }, extract: { format: 'regex', pattern: '(?<n>\\w+)', all: true } },
    get_info: { outputSchema: { type: 'object' }, extract: { format: 'yaml' }, onInvalid: 'passthrough' },
  });
  const list = {
    tools: [
      { name: 'read_file', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } },
      { name: 'list_directory', inputSchema: { type: 'object' } },
      { name: 'get_info', inputSchema: { type: 'object' }, outputSchema: { type: 'nope' } },
      { name: 'ping', inputSchema: { type: 'object' } },
    ],
  };

  it('lists the repairs and retrofits of each tool, in order', () => {
    const plans = planToolsList(list, policy);
    expect(plans.map(describePlan)).toEqual([
      'read_file: repaired (input_type_added: root type "object" added)',
      'list_directory: retrofitted by "list_*" (format regex, non-object root, legacyRoots wrap, onInvalid error)',
      'get_info: retrofitted by "get_info" (format yaml, object root, onInvalid passthrough)',
      'ping: unchanged',
    ]);
  });

  it('reports repairs even when the list was seen before', () => {
    planToolsList(list, policy);
    expect(planToolsList(list, policy)[0]!.repairs).toEqual([{ tool: 'read_file', kind: 'input_type_added', detail: 'root type "object" added' }]);
  });
});
