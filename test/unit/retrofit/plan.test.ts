import { describe, expect, it } from 'vitest';
import { planToolsList } from '../../../src/retrofit/plan.js';
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
    expect(plans.map((p) => p.tool)).toEqual(['read_file', 'list_directory', 'get_info', 'ping']);
    expect(plans[0]).toEqual({ tool: 'read_file', repairs: [{ tool: 'read_file', kind: 'input_type_added', detail: 'root type "object" added' }] });
    expect(plans[1]!.retrofit).toMatchObject({ key: 'list_*', format: 'regex', root: 'non-object', legacyRoots: 'wrap', onInvalid: 'error', shadow: false });
    expect(plans[2]!.retrofit).toMatchObject({ key: 'get_info', format: 'yaml', root: 'object', onInvalid: 'passthrough', shadow: true });
    expect(plans[3]).toEqual({ tool: 'ping', repairs: [] });
  });

  it('reports repairs even when the list was seen before', () => {
    planToolsList(list, policy);
    expect(planToolsList(list, policy)[0]!.repairs).toEqual([{ tool: 'read_file', kind: 'input_type_added', detail: 'root type "object" added' }]);
  });
});
