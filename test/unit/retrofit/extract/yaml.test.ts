import { describe, expect, it } from 'vitest';
import { extractYaml } from '../../../../src/retrofit/extract/yaml.js';

describe('yaml', () => {
  it('reads key: value reports', () => {
    expect(extractYaml('name: server-1\nstatus: running\nuptime: 3600\n')).toEqual({ name: 'server-1', status: 'running', uptime: 3600 });
  });
  it('falls back to one pair per line when the text is not YAML', () => {
    expect(extractYaml('Status: ok: yes\nTime: 12:30')).toEqual({ Status: 'ok: yes', Time: '12:30' });
  });
  it('yields nothing for prose', () => {
    expect(extractYaml('just some words')).toBeUndefined();
  });
  it('never lets __proto__ through', () => {
    const value = extractYaml('__proto__:\n  polluted: yes\nname: a') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['name']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
