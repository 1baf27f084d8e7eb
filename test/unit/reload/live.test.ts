import { describe, expect, it } from 'vitest';
import { Generations } from '../../../src/reload/generations.js';
import { gatewayConfig, httpUpstream } from '../../helpers/config.js';

describe('Generations and live views', () => {
  it('views captured before a swap read the new generation after it', () => {
    const first = gatewayConfig([httpUpstream('web', 'http://a.test/mcp', { timeoutMs: 1 })], { allowedOrigins: ['https://a.test'] });
    const second = gatewayConfig([httpUpstream('web', 'http://a.test/mcp', { timeoutMs: 2 })], { allowedOrigins: ['https://b.test'] });
    const generations = new Generations(first);
    const config = generations.config;
    const [upstream] = Object.values(config.upstreams);
    const policies = generations.policies;
    expect(upstream?.timeoutMs).toBe(1);
    expect(config.allowedOrigins).toEqual(['https://a.test']);
    expect(policies.get('web')).toBe(first.policies.get('web'));

    const heard: (readonly string[])[] = [];
    const off = generations.onToolsChanged((names) => heard.push(names));
    generations.swap(second, ['web']);
    expect(upstream?.timeoutMs).toBe(2);
    expect(config.upstreams.web?.timeoutMs).toBe(2);
    expect(config.allowedOrigins).toEqual(['https://b.test']);
    expect(policies.get('web')).toBe(second.policies.get('web'));
    expect([...policies.keys()]).toEqual(['web']);
    expect(policies.size).toBe(1);
    expect(generations.number).toBe(2);
    expect(heard).toEqual([['web']]);
    expect(JSON.parse(JSON.stringify(config)).upstreams.web.timeoutMs).toBe(2);

    off();
    generations.swap(first, ['web']);
    expect(heard).toHaveLength(1);
    expect(() => Object.assign(config, { allowedOrigins: [] })).toThrow(TypeError);
  });
});
