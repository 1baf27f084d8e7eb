/** loadConfig on good configs: the contract example, defaults, expansion, schema files, freezing, secrets. */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { load, problemsOf, tempFiles } from './helpers.js';

const EXAMPLE = resolve('test/fixtures/config/contract-example.yaml');
const EXAMPLE_ENV = { GATEWAY_TOKEN: 'gw-token-123', WEATHER_TOKEN: 'weather-token-456' };

describe('the CONTRACT.md §2 example', () => {
  test('is the example from the contract, verbatim', async () => {
    const contract = await readFile('/work/shared/CONTRACT.md', 'utf8').catch(() => undefined);
    if (contract === undefined) return; // the shared brief is not part of the repository
    const fixture = await readFile(EXAMPLE, 'utf8');
    expect(contract).toContain(fixture.trimEnd());
  });

  test('loads with its variables set', async () => {
    const { config, policies } = await loadConfig(EXAMPLE, { env: EXAMPLE_ENV });
    expect(config.file).toBe(EXAMPLE);
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.auth).toEqual({ bearerTokens: ['gw-token-123'] });
    expect(config.limits).toEqual({ maxRequestBytes: 4194304, maxResultBytes: 16777216, headersTimeoutMs: 10000, requestTimeoutMs: 30000, keepAliveTimeoutMs: 72000, maxHeaderBytes: 16384 });
    expect(Object.keys(config.upstreams)).toEqual(['memory', 'weather', 'legacy']);
    expect([...policies.keys()]).toEqual(['memory', 'weather', 'legacy']);

    const memory = config.upstreams.memory;
    expect(memory).toMatchObject({ kind: 'stdio', command: 'npx', args: ['-y', 'some-mcp-server@1.2.3'], env: { DATA_DIR: '/data' }, cwd: '/srv', path: '/memory/mcp' });
    const weather = config.upstreams.weather;
    expect(weather).toMatchObject({ kind: 'http', url: 'http://127.0.0.1:9000/mcp', timeoutMs: 60000, path: '/weather/mcp' });
    expect(weather?.kind === 'http' && weather.headers).toEqual({ Authorization: 'Bearer weather-token-456' });
    expect(config.upstreams.legacy).toMatchObject({ kind: 'sse', sse: 'http://127.0.0.1:9100/sse', headers: {}, path: '/legacy/mcp', timeoutMs: 60000 });

    const getWeather = weather?.tools.get_weather;
    expect(getWeather?.outputSchemaFile).toBe(resolve('test/fixtures/config/schemas/weather.json'));
    expect(getWeather?.outputSchema).toMatchObject({ type: 'object', required: ['weather'] });
    expect(getWeather?.extract).toEqual({ format: 'auto', pattern: '(?<city>\\w+): (?<temperature>-?\\d+)', flags: 'i', all: false, select: '/data', wrap: 'weather' });
    expect(getWeather?.onInvalid).toBe('passthrough');
    expect(weather?.tools.get_temperature).toMatchObject({ outputSchema: { type: 'integer' }, onInvalid: 'error', legacyRoots: 'wrap', coerce: true });
  });

  test('collects every secret-bearing value', async () => {
    const { config } = await loadConfig(EXAMPLE, { env: EXAMPLE_ENV });
    expect([...config.secrets].sort()).toEqual(['/data', 'Bearer weather-token-456', 'gw-token-123', 'weather-token-456']);
  });

  test('is deep-frozen', async () => {
    const { config } = await loadConfig(EXAMPLE, { env: EXAMPLE_ENV });
    const seen: unknown[] = [];
    const walk = (v: unknown): void => {
      if (v === null || typeof v !== 'object') return;
      seen.push(v);
      expect(Object.isFrozen(v)).toBe(true);
      for (const child of Object.values(v)) walk(child);
    };
    walk(config);
    expect(seen.length).toBeGreaterThan(20);
    expect(() => {
      (config.listen as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  test('without its variables, names each unset one at its position', async () => {
    const err = await loadConfig(EXAMPLE, { env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as ConfigError).message.split('\n');
    expect(lines).toEqual([
      `${EXAMPLE}:6:18 auth.bearerTokens[0]: environment variable GATEWAY_TOKEN is not set`,
      `${EXAMPLE}:23:31 upstreams.weather.headers.Authorization: environment variable WEATHER_TOKEN is not set`,
    ]);
  });
});

describe('defaults', () => {
  test('a minimal config gets every default', async () => {
    const { dir, loaded } = await load('upstreams:\n  s:\n    command: node\n  h:\n    url: https://example.test/mcp\n    tools:\n      "*": {}\n');
    const { config } = loaded;
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.auth).toBeUndefined();
    expect(config.allowedOrigins).toEqual([]);
    expect(config.defaults).toEqual({ onInvalid: 'error', legacyRoots: 'wrap', coerce: true });
    expect(config.upstreams.s).toEqual({ name: 's', kind: 'stdio', command: 'node', args: [], env: {}, cwd: dir, path: '/s/mcp', timeoutMs: 60000, tools: {}, bridge: true, share: false, stderr: 'debug', idleTimeoutMs: 900000, maxSessions: 32, stateless: { serve: true, poolSize: 4, idleTimeoutMs: 300000 } });
    expect(config.upstreams.h).toMatchObject({ kind: 'http', headers: {}, path: '/h/mcp' });
    expect(config.upstreams.h?.tools['*']).toEqual({ onInvalid: 'error', legacyRoots: 'wrap', coerce: true });
    expect(config.secrets).toEqual([]);
  });

  test('tools inherit `defaults:` unless they set their own; a relative cwd is resolved against the config file', async () => {
    const yaml = [
      'defaults: { onInvalid: passthrough, legacyRoots: drop, coerce: false }',
      'upstreams:',
      '  s:',
      '    command: node',
      '    cwd: sub/dir',
      '    tools:',
      '      a: { extract: { format: yaml } }',
      '      b: { coerce: true }',
    ].join('\n');
    const { dir, loaded } = await load(`${yaml}\n`);
    const s = loaded.config.upstreams.s;
    expect(s?.kind === 'stdio' && s.cwd).toBe(join(dir, 'sub/dir'));
    expect(s?.tools.a).toEqual({ extract: { format: 'yaml' }, onInvalid: 'passthrough', legacyRoots: 'drop', coerce: false });
    expect(s?.tools.b).toEqual({ onInvalid: 'passthrough', legacyRoots: 'drop', coerce: true });
  });
});

describe('${VAR} expansion', () => {
  const url = (value: string) => `upstreams:\n  a:\n    url: ${value}\n`;

  test('uses the default when the variable is unset or empty, the value when set', async () => {
    const unset = await load(url('http://${HOST:-localhost:9}/mcp'));
    expect(unset.loaded.config.upstreams.a).toMatchObject({ url: 'http://localhost:9/mcp' });
    expect(unset.loaded.config.secrets).toEqual([]);
    const empty = await load(url('http://${HOST:-localhost:9}/mcp'), { HOST: '' });
    expect(empty.loaded.config.upstreams.a).toMatchObject({ url: 'http://localhost:9/mcp' });
    const set = await load(url('http://${HOST:-localhost:9}/mcp'), { HOST: 'upstream.internal' });
    expect(set.loaded.config.upstreams.a).toMatchObject({ url: 'http://upstream.internal/mcp' });
    expect(set.loaded.config.secrets).toEqual(['upstream.internal']);
  });

  test('$${VAR} is a literal ${VAR}, and keys are never expanded', async () => {
    // (env: a header name holding `{` is no HTTP token.)
    const yaml = 'upstreams:\n  a:\n    command: node\n    env: { "${K}": "$${NOT_EXPANDED}" }\n';
    const { loaded } = await load(yaml);
    const a = loaded.config.upstreams.a;
    expect(a?.kind === 'stdio' && a.env).toEqual({ '${K}': '${NOT_EXPANDED}' });
  });

  test('an unquoted ${VAR} where the schema wants a number or boolean becomes one; quoted it stays a string', async () => {
    // Block style: inside a flow collection (`{ }`, `[ ]`) YAML needs `${…}` quoted.
    const yaml = 'listen:\n  port: ${PORT}\ndefaults:\n  coerce: ${COERCE:-false}\nupstreams:\n  a:\n    url: http://x/mcp\n    headers:\n      X-Id: ${ID}\n';
    const { loaded } = await load(yaml, { PORT: '9123', ID: '42' });
    expect(loaded.config.listen.port).toBe(9123);
    expect(loaded.config.secrets).toEqual(['42']); // the header value; the port is no secret
    expect(loaded.config.defaults.coerce).toBe(false);
    const a = loaded.config.upstreams.a;
    expect(a?.kind === 'http' && a.headers).toEqual({ 'X-Id': '42' });
    const { problems } = await problemsOf('listen:\n  port: "${PORT}"\nupstreams:\n  a: { url: http://x/mcp }\n', { PORT: '9123' });
    expect(problems.map((p) => `${p.line}:${p.col} ${p.message}`)).toEqual(['2:9 listen.port: must be integer (found string)']);
  });
});

describe('schema files', () => {
  test('JSON and YAML files are read relative to the config file', async () => {
    const yaml = 'upstreams:\n  a:\n    url: http://x/mcp\n    tools:\n      t:\n        outputSchemaFile: s/out.yaml\n        inputSchemaFile: s/in.json\n';
    const { dir, loaded } = await load(yaml, {}, {
      's/out.yaml': 'type: array\nitems: { type: string }\n',
      's/in.json': '{ "type": "object", "properties": { "q": { "type": "string" } } }',
    });
    expect(loaded.config.upstreams.a?.tools.t).toMatchObject({
      outputSchema: { type: 'array', items: { type: 'string' } },
      outputSchemaFile: join(dir, 's/out.yaml'),
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      inputSchemaFile: join(dir, 's/in.json'),
    });
  });

  test('problems in several upstreams and schema files are all reported, sorted by file', async () => {
    const yaml = 'upstreams:\n  a:\n    url: http://x/mcp\n    tools:\n      t: { outputSchemaFile: b.json }\n  b:\n    url: http://y/mcp\n    tools:\n      t: { outputSchemaFile: a.json }\n';
    const dir = await tempFiles({ 'config.yaml': yaml, 'a.json': '{\n  "type": "object",\n  "x": [1, }', 'b.json': '{ "type": [1, }' });
    const err = (await loadConfig(join(dir, 'config.yaml'), { env: {} }).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(new Set(err.problems.map((p) => p.file))).toEqual(new Set([join(dir, 'a.json'), join(dir, 'b.json')]));
    expect(err.problems[0]?.file).toBe(join(dir, 'a.json'));
    expect(err.problems[0]?.line).toBe(3);
  });
});

test('an unreadable config file is one clear problem', async () => {
  const err = (await loadConfig('/nonexistent/retrofit.yaml').catch((e: unknown) => e)) as ConfigError;
  expect(err).toBeInstanceOf(ConfigError);
  expect(err.problems).toEqual([{ file: '/nonexistent/retrofit.yaml', line: 1, col: 1, message: 'cannot read config file (no such file)' }]);
});

describe('sessionIdPrefix', () => {
  const UPSTREAMS = 'upstreams:\n  memory:\n    command: node\n';

  test('is absent by default, and taken from the environment without becoming a secret', async () => {
    expect((await load(UPSTREAMS)).loaded.config.sessionIdPrefix).toBeUndefined();
    const { loaded } = await load(`sessionIdPrefix: "\${HOSTNAME}"\n${UPSTREAMS}`, { HOSTNAME: 'mcp-retrofit-2' });
    expect(loaded.config.sessionIdPrefix).toBe('mcp-retrofit-2');
    // In every session id the clients get: scrubbing it would blank the session of every log line.
    expect(loaded.config.secrets).not.toContain('mcp-retrofit-2');
  });

  test('must be letters, digits, _ or -, with its position', async () => {
    const { problems } = await problemsOf(`sessionIdPrefix: "a.b"\n${UPSTREAMS}`);
    expect(problems).toEqual([expect.objectContaining({ line: 1, col: 18, message: expect.stringContaining('must be 1 to 64 letters, digits, `_` or `-`') })]);
  });
});
