import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/try.js';
import { textSink } from '../../helpers/cli.js';

const CONFIG = `
clients:
  - name: plain
    match: { name: "plain-*", version: "<2" }
    outputSchema: strip
  - name: fallback
    match: { name: "@scope/agent" }
    textFallback: true
upstreams:
  weather:
    url: http://127.0.0.1:9/mcp
    tools:
      get_weather:
        outputSchema: { type: object, properties: { city: { type: string }, temp: { type: integer } }, required: [city, temp] }
      list_*:
        outputSchema: { type: array, items: { type: string } }
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'retrofit-try-'));
  await writeFile(join(dir, 'config.yaml'), CONFIG);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tryIt(args: string[]) {
  const stdout = textSink();
  const stderr = textSink();
  const code = await run(['--config', join(dir, 'config.yaml'), ...args], { stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('mcp-retrofit try --client (issue 26)', () => {
  it('shapes the result for the profile a client of that name and version matches, and says which', async () => {
    await writeFile(join(dir, 'out.txt'), 'Weather: {"city": "Oslo", "temp": 3}');
    const args = ['--upstream', 'weather', '--tool', 'get_weather', '--text-file', join(dir, 'out.txt')];
    const plain = await tryIt([...args, '--client', 'plain-bot@1.2.0']);
    expect(JSON.parse(plain.stdout)).toEqual({ content: [{ type: 'text', text: 'Weather: {"city": "Oslo", "temp": 3}' }] });
    expect(plain.stderr).toContain('try: client "plain-bot@1.2.0" gets profile "plain"');
    const scoped = await tryIt([...args, '--client', '@scope/agent']);
    expect(JSON.parse(scoped.stdout).content).toEqual([{ type: 'text', text: 'Weather: {"city": "Oslo", "temp": 3}' }, { type: 'text', text: '{"city":"Oslo","temp":3}' }]);
    const newer = await tryIt([...args, '--client', 'plain-bot@2.0.0']);
    expect(JSON.parse(newer.stdout).structuredContent).toEqual({ city: 'Oslo', temp: 3 });
    expect(newer.stderr).toContain('matches no profile');
  });
});

describe('mcp-retrofit try', () => {
  it('prints the CallToolResult with structuredContent and exits 0', async () => {
    await writeFile(join(dir, 'out.txt'), 'Weather: {"city": "Oslo", "temp": "-3"}');
    const r = await tryIt(['--upstream', 'weather', '--tool', 'get_weather', '--text-file', join(dir, 'out.txt')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ content: [{ type: 'text', text: 'Weather: {"city": "Oslo", "temp": "-3"}' }], structuredContent: { city: 'Oslo', temp: -3 } });
    expect(r.stderr).toContain('extracted (embedded)');
  });

  it('projects for --protocol (array root wrapped for 2025-11-25, raw for 2026-07-28)', async () => {
    await writeFile(join(dir, 'r.json'), JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] } }));
    // Unquoted blocks, as a Python SDK server sends a list[str]: their texts are the list.
    const legacy = await tryIt(['--upstream', 'weather', '--tool', 'list_cities', '--result-file', join(dir, 'r.json')]);
    expect(legacy.code).toBe(0);
    expect(JSON.parse(legacy.stdout).structuredContent).toEqual({ result: ['a', 'b'] });
    await writeFile(join(dir, 'r.json'), JSON.stringify({ content: [{ type: 'text', text: '"a"' }, { type: 'text', text: '"b"' }] }));
    const wrapped = await tryIt(['--upstream', 'weather', '--tool', 'list_cities', '--result-file', join(dir, 'r.json')]);
    expect(JSON.parse(wrapped.stdout).structuredContent).toEqual({ result: ['a', 'b'] });
    const modern = await tryIt(['--upstream=weather', '--tool=list_cities', `--result-file=${join(dir, 'r.json')}`, '--protocol', '2026-07-28']);
    expect(modern.code).toBe(0);
    expect(JSON.parse(modern.stdout).structuredContent).toEqual(['a', 'b']);
  });

  it('prints the reasons on stderr and exits 1 when invalid', async () => {
    await writeFile(join(dir, 'bad.txt'), '{"city": 5}');
    const r = await tryIt(['--upstream', 'weather', '--tool', 'get_weather', '--text-file', join(dir, 'bad.txt')]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).isError).toBe(true);
    expect(r.stderr).toContain('try: invalid');
    expect(r.stderr).toContain('/city must be string');
  });

  it('says so when the tool has no outputSchema', async () => {
    await writeFile(join(dir, 't.txt'), '{}');
    const r = await tryIt(['--upstream', 'weather', '--tool', 'other', '--text-file', join(dir, 't.txt')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no outputSchema is configured for tool "other"');
  });

  it.each([
    [['--upstream', 'weather', '--tool', 'get_weather'], 'exactly one of'],
    [['--upstream', 'nope', '--tool', 'x', '--text-file', '/dev/null'], 'no upstream "nope"'],
    [['--upstream', 'weather', '--tool', 'x', '--text-file', '/dev/null', '--protocol', 'latest'], '--protocol must be one of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 (got "latest")'],
    [['--upstream', 'weather', '--tool', 'x', '--text-file', '/dev/null', '--protocol', '2099-99-99'], '(got "2099-99-99")'],
    [['--upstream', 'weather', '--tool', 'x', '--bogus', '1'], 'unknown argument'],
    [['--upstream', 'weather', '--tool', 'x', '--text-file', '/nonexistent/file'], 'ENOENT'],
  ])('usage error %j exits 2', async (args, message) => {
    const r = await tryIt(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('a broken config exits 1 with its problems', async () => {
    await writeFile(join(dir, 'config.yaml'), 'upstreams:\n  w:\n    url: http://x\n    tools:\n      t:\n        outputSchema: { type: objekt }\n');
    const r = await tryIt(['--upstream', 'w', '--tool', 't', '--text-file', '/dev/null']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/config\.yaml:\d+:\d+/);
  });
});

// Regression (review of the retrofit engine, 2026-12-07): `try` printed a failed reading's isError for a client
// that was shown no schema (a 2025-03-26 client, a profile that strips schemas), where the gateway serves it the
// upstream's result: `try` now decides what the client gets as the gateway does (src/pipeline/mode.ts).
describe('mcp-retrofit try for a client shown no schema', () => {
  it.each([
    ['a 2025-03-26 client', ['--protocol', '2025-03-26']],
    ['a profile that strips schemas', ['--client', 'plain-bot@1.0.0']],
  ])('%s gets the upstream result of a failed reading, and is told why', async (_label, extra) => {
    await writeFile(join(dir, 'out.txt'), 'no JSON here');
    const out = await tryIt(['--upstream', 'weather', '--tool', 'get_weather', '--text-file', join(dir, 'out.txt'), ...extra]);
    expect(JSON.parse(out.stdout)).toEqual({ content: [{ type: 'text', text: 'no JSON here' }] });
    expect(out.stderr).toContain('is shown no outputSchema for tool "get_weather"');
    expect(out.stderr).toContain('try: unparseable');
    expect(out.code).toBe(1);
  });

  it('a client shown the schema still gets the failure as isError', async () => {
    await writeFile(join(dir, 'out.txt'), 'no JSON here');
    const out = await tryIt(['--upstream', 'weather', '--tool', 'get_weather', '--text-file', join(dir, 'out.txt'), '--protocol', '2025-06-18']);
    expect(JSON.parse(out.stdout)).toMatchObject({ isError: true });
    expect(out.stderr).not.toContain('is shown no outputSchema');
  });
});
