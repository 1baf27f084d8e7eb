import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StdioUpstreamConfig } from '../../../src/config/types.js';
import { checkSpawnable, childCwd, childEnv } from '../../../src/upstream/stdio-env.js';

const upstream = (extra: Partial<StdioUpstreamConfig> = {}): StdioUpstreamConfig => ({
  kind: 'stdio',
  name: 'u',
  path: '/u/mcp',
  timeoutMs: 1000,
  tools: {},
  command: 'node',
  args: [],
  env: {},
  bridge: true,
  share: false,
  idleTimeoutMs: 900_000,
  ...extra,
} as StdioUpstreamConfig);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stdio-env-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('childEnv', () => {
  it('passes the allowlist and the upstream env, never the rest of the gateway env', () => {
    const env = childEnv(upstream({ env: { DATA_DIR: '/data', HOME: '/srv' } }), { PATH: '/bin', HOME: '/root', GATEWAY_TOKEN: 'secret', USER: 'me' });
    expect(env).toEqual({ PATH: '/bin', HOME: '/srv', USER: 'me', DATA_DIR: '/data' });
  });
  it('drops exported shell functions', () => {
    expect(childEnv(upstream(), { SHELL: '() { :; }; echo pwned', PATH: '/bin' })).toEqual({ PATH: '/bin' });
  });
});

describe('childCwd', () => {
  it('defaults to the config file directory and resolves relative cwd against it', () => {
    expect(childCwd(upstream(), { file: '/etc/gw/config.yaml' })).toBe('/etc/gw');
    expect(childCwd(upstream({ cwd: '../srv' }), { file: '/etc/gw/config.yaml' })).toBe('/etc/srv');
    expect(childCwd(upstream({ cwd: '/abs' }), { file: '/etc/gw/config.yaml' })).toBe('/abs');
  });
});

describe('checkSpawnable', () => {
  it('finds a command on PATH', async () => {
    await writeFile(join(dir, 'tool'), '#!/bin/sh\n');
    await chmod(join(dir, 'tool'), 0o755);
    expect(await checkSpawnable('tool', dir, { PATH: `/nonexistent:${dir}` })).toEqual({ ok: true });
    expect(await checkSpawnable('other', dir, { PATH: dir })).toEqual({ ok: false, detail: 'command "other" not found on PATH' });
  });
  it('checks a command given as a path relative to cwd, and that it is executable', async () => {
    await writeFile(join(dir, 'plain'), '');
    await writeFile(join(dir, 'run'), '#!/bin/sh\n');
    await chmod(join(dir, 'run'), 0o755);
    expect(await checkSpawnable('./run', dir, {})).toEqual({ ok: true });
    expect((await checkSpawnable('./plain', dir, {})).ok).toBe(false);
  });
  it('fails when cwd does not exist or is a file', async () => {
    expect(await checkSpawnable('node', join(dir, 'missing'), { PATH: process.env.PATH ?? '' })).toMatchObject({ ok: false, detail: expect.stringContaining('does not exist') });
    await writeFile(join(dir, 'file'), '');
    expect(await checkSpawnable('node', join(dir, 'file'), { PATH: process.env.PATH ?? '' })).toMatchObject({ ok: false, detail: expect.stringContaining('not a directory') });
  });
});
