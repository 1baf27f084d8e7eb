/** The loopback-peer rule of the console, and the config edit apply makes (comments and other keys kept). */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { editConfig } from '../../../src/console/apply.js';
import { createMatcher } from '../../../src/policy/match.js';
import { peerAllowed } from '../../../src/http/console/routes.js';

describe('peerAllowed', () => {
  it('serves loopback peers only, unless ui.remote', () => {
    expect(peerAllowed(false, '127.0.0.1')).toBe(true);
    expect(peerAllowed(false, '::ffff:127.0.0.1')).toBe(true);
    expect(peerAllowed(false, '::1')).toBe(true);
    expect(peerAllowed(false, '10.0.0.7')).toBe(false);
    expect(peerAllowed(false, undefined)).toBe(false);
    expect(peerAllowed(true, '10.0.0.7')).toBe(true);
  });
});

describe('editConfig', () => {
  const text = `# the gateway
upstreams:
  memory:
    command: node # the server
    tools:
      read_graph:
        shadow: true # watch first
        outputSchemaFile: old.json
      other: { outputSchema: { type: string } }
`;

  it('replaces what Learn proposes of an entry, keeping its other keys and every comment', () => {
    const out = editConfig(text, 'memory', new Map([['read_graph', { extract: { format: 'json' }, outputSchema: { type: 'object' } }], ['new_tool', { outputSchema: { type: 'integer' } }]]));
    if (!('text' in out)) throw new Error(out.problems.join('\n'));
    expect(out.text).toContain('# the gateway');
    expect(out.text).toContain('# the server');
    expect(out.text).toContain('# watch first');
    expect(parse(out.text)).toEqual({
      upstreams: {
        memory: {
          command: 'node',
          tools: {
            read_graph: { shadow: true, outputSchema: { type: 'object' }, extract: { format: 'json' } },
            other: { outputSchema: { type: 'string' } },
            new_tool: { outputSchema: { type: 'integer' } },
          },
        },
      },
    });
  });

  it('regression: a tool whose name holds glob characters is written under an escaped key, which governs it alone', () => {
    const out = editConfig(text, 'memory', new Map([['!legacy', { outputSchema: { type: 'object' } }], ['x?', { outputSchema: { type: 'integer' } }]]));
    if (!('text' in out)) throw new Error(out.problems.join('\n'));
    const keys = Object.keys((parse(out.text) as { upstreams: { memory: { tools: Record<string, unknown> } } }).upstreams.memory.tools);
    expect(keys).toEqual(['read_graph', 'other', '\\!legacy', 'x\\?']);
    // As written before, "!legacy" (a negation) governed every tool without an exact key, and "x?" governed "xy".
    const matcher = createMatcher(keys);
    expect(['!legacy', 'x?', 'xy', 'unlisted', 'other'].map((t) => matcher.match(t))).toEqual(['\\!legacy', 'x\\?', undefined, undefined, 'other']);
  });

  it('an upstream the file does not hold as a map is a problem, not an edit', () => {
    expect(editConfig(text, 'nope', new Map())).toEqual({ problems: ['upstreams.nope is not a map in the file'] });
  });
});
