/** `shadow:` in the config: per tool, per upstream and in `defaults`, inherited tool > upstream > defaults. */
import { describe, expect, test } from 'vitest';
import { inShadow } from '../../../src/retrofit/engine.js';
import { load, problemsOf } from './helpers.js';

const CONFIG = `
defaults: { shadow: true }
upstreams:
  a:
    url: http://127.0.0.1:1/mcp
    tools:
      inherits: { outputSchema: { type: object } }
      off: { outputSchema: { type: object }, shadow: false }
  b:
    url: http://127.0.0.1:2/mcp
    shadow: false
    tools:
      inherits: { outputSchema: { type: object } }
      on: { outputSchema: { type: object }, shadow: true }
      passthrough: { outputSchema: { type: object }, onInvalid: passthrough }
`;

describe('shadow', () => {
  test('a tool inherits shadow from its upstream, an upstream from defaults', async () => {
    const { loaded } = await load(CONFIG);
    const shadowed = (upstream: string, tool: string): boolean => inShadow(loaded.policies.get(upstream)!, tool);
    expect(loaded.config.defaults.shadow).toBe(true);
    expect([shadowed('a', 'inherits'), shadowed('a', 'off')]).toEqual([true, false]);
    expect([shadowed('b', 'inherits'), shadowed('b', 'on'), shadowed('b', 'passthrough')]).toEqual([false, true, true]);
    expect(loaded.config.upstreams.b?.tools.inherits?.shadow).toBe(false);
  });

  test('a config that never says shadow writes none into its entries', async () => {
    const { loaded } = await load('upstreams:\n  a:\n    url: http://127.0.0.1:1/mcp\n    tools:\n      t: { outputSchema: { type: object } }\n');
    expect(loaded.config.upstreams.a?.tools.t).not.toHaveProperty('shadow');
    expect(loaded.config.defaults).not.toHaveProperty('shadow');
  });

  test('shadow must be a boolean', async () => {
    const { problems } = await problemsOf('upstreams:\n  a:\n    url: http://127.0.0.1:1/mcp\n    shadow: yes please\n');
    expect(problems.map((p) => p.message)).toEqual([expect.stringMatching(/^upstreams\.a\.shadow: must be boolean/) as unknown]);
  });
});
