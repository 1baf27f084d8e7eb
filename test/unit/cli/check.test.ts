/** `mcp-retrofit check`, run in-process through run(). */
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { run } from '../../../src/cli/check.js';
import { tempFiles } from '../config/helpers.js';

function io() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const read = (s: PassThrough) => () => (s.read() as Buffer | null)?.toString('utf8') ?? '';
  return { io: { stdout, stderr }, out: read(stdout), err: read(stderr) };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('check', () => {
  test('a good config prints ok and exits 0', async () => {
    vi.stubEnv('GATEWAY_TOKEN', 'gw');
    vi.stubEnv('WEATHER_TOKEN', 'wt');
    const t = io();
    expect(await run(['--config', 'test/fixtures/config/contract-example.yaml'], t.io)).toBe(0);
    expect(t.out()).toBe('ok\n');
    // Its get_weather says onInvalid: passthrough: a warning, not a problem.
    expect(t.err()).toBe(
      'test/fixtures/config/contract-example.yaml:39:9 warning: upstreams.weather.tools.get_weather: onInvalid: passthrough serves this tool in shadow mode: it is listed without its outputSchema and every result reaches the client unchanged (outcomes are still counted, mode="shadow"); write `shadow: true` to say so\n',
    );
  });

  test('warns for every tool that onInvalid: passthrough puts in shadow mode, where the setting is written', async () => {
    const dir = await tempFiles({
      'c.yaml': [
        'defaults:',
        '  onInvalid: passthrough',
        'upstreams:',
        '  a:',
        '    url: http://127.0.0.1:1/mcp',
        '    tools:',
        '      inherited: { outputSchema: { type: object } }',
        '      explicit: { outputSchema: { type: object }, shadow: true }',
        '      noSchema: { coerce: false }',
        '      strict: { outputSchema: { type: object }, onInvalid: error }',
        '      own:',
        '        outputSchema: { type: object }',
        '        onInvalid: passthrough',
        '',
      ].join('\n'),
    });
    const t = io();
    expect(await run(['--config', join(dir, 'c.yaml')], t.io)).toBe(0);
    expect(t.out()).toBe('ok\n');
    const lines = t.err().split('\n').filter(Boolean);
    expect(lines.map((l) => l.replace(/: onInvalid: passthrough serves .*$/, ''))).toEqual([
      `${join(dir, 'c.yaml')}:2:3 warning: upstreams.a.tools.inherited`,
      `${join(dir, 'c.yaml')}:13:9 warning: upstreams.a.tools.own`,
    ]);
    expect(lines[0]).toMatch(/write `shadow: true` to say so$/);
  });

  test('a bad config prints each problem as FILE:LINE:COL message and exits 1', async () => {
    const dir = await tempFiles({ 'c.yaml': 'listen:\n  prot: 1\nupstreams:\n  a:\n    url: http://x/mcp\n    command: node\n' });
    const t = io();
    expect(await run([`--config=${join(dir, 'c.yaml')}`], t.io)).toBe(1);
    expect(t.out()).toBe('');
    expect(t.err().split('\n').filter(Boolean)).toEqual([
      `${join(dir, 'c.yaml')}:2:3 listen: unknown key "prot" (did you mean "port"?)`,
      `${join(dir, 'c.yaml')}:4:3 upstreams.a: must have exactly one of url, sse, command (found url and command)`,
    ]);
  });

  test('files under the working directory are shown relative to it', async () => {
    vi.stubEnv('GATEWAY_TOKEN', undefined);
    const t = io();
    expect(await run(['--config', 'test/fixtures/config/contract-example.yaml'], t.io)).toBe(1);
    expect(t.err()).toMatch(/^test\/fixtures\/config\/contract-example\.yaml:6:18 .*GATEWAY_TOKEN is not set$/m);
  });

  test('a missing --config is a usage error', async () => {
    const t = io();
    expect(await run([], t.io)).toBe(1);
    expect(t.err()).toMatch(/--config FILE is required/);
    const u = io();
    expect(await run(['--config'], u.io)).toBe(1);
    expect(u.err()).toMatch(/--config needs a file/);
    const v = io();
    expect(await run(['--config', 'x.yaml', '--bogus'], v.io)).toBe(1);
    expect(v.err()).toMatch(/unknown argument "--bogus"/);
  });

  test('an unreadable file is a clear message', async () => {
    const t = io();
    expect(await run(['--config', '/nonexistent/gw.yaml'], t.io)).toBe(1);
    expect(t.err()).toBe('/nonexistent/gw.yaml:1:1 cannot read config file (no such file)\n');
  });

  test('--timeout takes positive milliseconds and only goes with --probe', async () => {
    const t = io();
    expect(await run(['--config', 'x.yaml', '--probe', '--timeout', 'soon'], t.io)).toBe(1);
    expect(t.err()).toMatch(/^check: --timeout needs a positive number of milliseconds$/m);
    const u = io();
    expect(await run(['--config', 'x.yaml', '--probe', '--timeout=0'], u.io)).toBe(1);
    expect(u.err()).toMatch(/--timeout needs a positive number/);
    const v = io();
    expect(await run(['--config', 'x.yaml', '--timeout', '500'], v.io)).toBe(1);
    expect(v.err()).toMatch(/--timeout only applies with --probe/);
  });

  test('--probe on an invalid config prints the problems and contacts nothing', async () => {
    const dir = await tempFiles({ 'c.yaml': 'upstreams:\n  a:\n    url: http://127.0.0.1:9/mcp\n    tools:\n      t: { outputSchema: { type: nope } }\n' });
    const t = io();
    expect(await run(['--config', join(dir, 'c.yaml'), '--probe'], t.io)).toBe(1);
    expect(t.out()).toBe('');
    const err = t.err();
    expect(err).not.toMatch(/probe:/);
    expect(err).toMatch(/c\.yaml:5:\d+ upstreams\.a\.tools\.t\.outputSchema\.type: outputSchema does not compile/);
  });

  test('--probe never prints a ${VAR} secret, even in an unreachable url', async () => {
    vi.stubEnv('PROBE_KEY', 'sekrit-probe-key');
    // Port 9 is one fetch refuses outright, so nothing is contacted.
    const dir = await tempFiles({ 'c.yaml': 'upstreams:\n  a:\n    url: "http://127.0.0.1:9/mcp?key=${PROBE_KEY}"\n' });
    const t = io();
    expect(await run(['--config', join(dir, 'c.yaml'), '--probe'], t.io)).toBe(1);
    const err = t.err();
    expect(err).toMatch(/^probe: upstream "a" is unreachable: url http:\/\/127\.0\.0\.1:9\/mcp\?key=\[Redacted\]: /m);
    expect(err).not.toContain('sekrit-probe-key');
  });

  test('reports every mistake in one run: bad globs and every invalid place of a schema, each with file:line:col (issue 25)', async () => {
    const dir = await tempFiles({
      'c.yaml': [
        'upstreams:',
        '  memory:',
        '    command: node',
        '    tools:',
        '      "read_[": { outputSchema: { type: object } }',
        '      "{read_graph": { outputSchema: { type: arrray, properties: { a: { type: strin } } } }',
        '      "[": { outputSchema: { type: object } }',
        '',
      ].join('\n'),
    });
    const t = io();
    expect(await run(['--config', join(dir, 'c.yaml')], t.io)).toBe(1);
    const lines = t.err().trim().split('\n').map((l) => l.replace(/^.*c\.yaml:/, 'c.yaml:'));
    expect(lines).toEqual([
      'c.yaml:5:7 upstreams.memory.tools["read_["]: invalid glob: "[" at 6 is never closed',
      'c.yaml:6:7 upstreams.memory.tools["{read_graph"]: invalid glob: a "{" is never closed',
      expect.stringMatching(/^c\.yaml:6:\d+ upstreams\.memory\.tools\["\{read_graph"\]\.outputSchema\.type: outputSchema does not compile: schema is invalid: \/type must be equal to one of the allowed values/),
      expect.stringMatching(/^c\.yaml:6:\d+ upstreams\.memory\.tools\["\{read_graph"\]\.outputSchema\.properties\.a\.type: outputSchema does not compile/),
      'c.yaml:7:7 upstreams.memory.tools["["]: invalid glob: "[" at 1 is never closed',
    ]);
  });
});
