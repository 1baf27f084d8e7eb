/** followGenerations: the recorder takes a new config generation's settings before the first sample offered under it. */
import { expect, it } from 'vitest';
import type { RecorderConfig, RecordSample } from '../../../src/record/index.js';
import { followGenerations } from '../../../src/record/index.js';

it('configures the recorder once per new generation, before offering', () => {
  const first: RecorderConfig = { upstreams: {}, secrets: ['a'] };
  const second: RecorderConfig = { upstreams: {}, secrets: ['b'] };
  let current = first;
  const calls: string[] = [];
  const recorder = {
    offer: (s: RecordSample) => void calls.push(`offer ${s.tool}`),
    configure: (c: RecorderConfig) => void calls.push(`configure ${c.secrets.join()}`),
  };
  const following = followGenerations(recorder, () => current);
  const sample = (tool: string): RecordSample => ({ upstream: 'u', tool, result: { content: [] } });
  following.offer(sample('one'));
  current = second;
  following.offer(sample('two'));
  following.offer(sample('three'));
  expect(calls).toEqual(['offer one', 'configure b', 'offer two', 'offer three']);
});
