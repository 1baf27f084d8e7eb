import { describe, expect, it } from 'vitest';
import { STATELESS_DEFAULTS, type ToolConfig, type UpstreamConfig } from '../../../src/config/types.js';
import { compileUpstreamPolicy } from '../../../src/policy/compile.js';

const DEFAULTS = { onInvalid: 'error', legacyRoots: 'wrap', coerce: true } as const;

function upstream(tools: Record<string, ToolConfig>): UpstreamConfig {
  return { kind: 'stdio', name: 'fs', path: '/fs/mcp', timeoutMs: 1000, command: 'node', args: [], env: {}, tools, bridge: true, share: false, idleTimeoutMs: 900_000, maxSessions: 32, stateless: STATELESS_DEFAULTS, stderr: 'debug' };
}

describe('compileUpstreamPolicy', () => {
  it('merges defaults into each tool', () => {
    const { policy, errors } = compileUpstreamPolicy(upstream({ a: { outputSchema: { type: 'object' }, onInvalid: 'passthrough' }, b: {} }), DEFAULTS);
    expect(errors).toEqual([]);
    expect(policy.resolve('a')?.compiled).toMatchObject({ onInvalid: 'passthrough', legacyRoots: 'wrap', coerce: true, extract: { format: 'auto' } });
    expect(policy.resolve('b')?.compiled?.output).toBeUndefined();
    expect(policy.defaults).toEqual(DEFAULTS);
    expect(policy.upstream).toBe('fs');
  });

  it('resolves exact names first, then globs in file order', () => {
    const { policy } = compileUpstreamPolicy(upstream({ 'list_*': { coerce: false }, list_allowed: {}, '*': { onInvalid: 'passthrough' } }), DEFAULTS);
    expect(policy.resolve('list_allowed')?.key).toBe('list_allowed');
    expect(policy.resolve('list_dir')?.key).toBe('list_*');
    expect(policy.resolve('read')?.key).toBe('*');
  });

  it('reports an uncompilable outputSchema at its path inside the schema', () => {
    const { errors } = compileUpstreamPolicy(upstream({ t: { outputSchema: { type: 'object', properties: { a: { type: 'strng' } } } } }), DEFAULTS);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.path.slice(0, 5)).toEqual(['upstreams', 'fs', 'tools', 't', 'outputSchema']);
    expect(errors[0]!.path).toContain('properties');
    expect(errors[0]!.message).toContain('outputSchema does not compile');
  });

  it('reports an unknown dialect, a bad inputSchema and a non-object inputSchema', () => {
    const { errors } = compileUpstreamPolicy(
      upstream({
        d: { outputSchema: { $schema: 'http://json-schema.org/draft-04/schema#' } },
        i: { inputSchema: { type: 'nope' } },
        n: { inputSchema: { type: 'string' } },
      }),
      DEFAULTS,
    );
    expect(errors.map((e) => e.path.slice(3, 5))).toEqual([['d', 'outputSchema'], ['i', 'inputSchema'], ['n', 'inputSchema']]);
    expect(errors[0]!.path.slice(4)).toEqual(['outputSchema', '$schema']);
    expect(errors[0]!.message).toContain('unsupported JSON Schema dialect');
  });

  it('reports bad regexes and g/y flags at their keys', () => {
    const { errors } = compileUpstreamPolicy(
      upstream({
        p: { extract: { format: 'regex', pattern: '(?<x>' } },
        f: { extract: { format: 'regex', pattern: 'a', flags: 'g' } },
        q: { extract: { format: 'regex', pattern: 'a', flags: 'zz' } },
        m: { extract: { format: 'regex' } },
      }),
      DEFAULTS,
    );
    expect(errors.map((e) => e.path.slice(3).join('.'))).toEqual(['p.extract.pattern', 'f.extract.flags', 'q.extract.flags', 'm.extract']);
  });

  it('compiles the regex global only with all', () => {
    const { policy } = compileUpstreamPolicy(upstream({ a: { extract: { format: 'regex', pattern: 'x', flags: 'im', all: true } }, one: { extract: { format: 'regex', pattern: 'x' } } }), DEFAULTS);
    expect(policy.resolve('a')?.compiled?.regex?.flags).toBe('gim');
    expect(policy.resolve('one')?.compiled?.regex?.global).toBe(false);
  });

  it('rejects a select that is not a JSON pointer', () => {
    const { errors } = compileUpstreamPolicy(upstream({ s: { extract: { format: 'json', select: 'data' } } }), DEFAULTS);
    expect(errors[0]!.path.slice(3)).toEqual(['s', 'extract', 'select']);
  });
});
