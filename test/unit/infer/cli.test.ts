/** `mcp-retrofit infer` on recordings: arguments, sources, --tool, exit codes, and secrets kept out of stdout. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../../src/cli/infer.js';
import { recordingFileName } from '../../../src/record/index.js';
import { toolDir } from '../../../src/record/write.js';
import { tempFiles } from '../config/helpers.js';
import { textSink } from '../../helpers/cli.js';

async function infer(args: string[]) {
  const stdout = textSink();
  const stderr = textSink();
  const code = await run(args, { stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const CONFIG = `upstreams:
  w:
    url: http://127.0.0.1:9/mcp
    headers: { Authorization: "Bearer \${TOKEN:-tok-abcdef}" }
    record: { dir: rec }
  other:
    url: http://127.0.0.1:9/other
`;

/** Writes recordings of upstream `w` as the recorder would. */
async function record(dir: string, tool: string, texts: string[]): Promise<void> {
  const where = toolDir(join(dir, 'rec'), 'w', tool);
  await mkdir(where, { recursive: true });
  for (const [i, text] of texts.entries()) {
    const recording = { upstream: 'w', tool, recordedAt: '2026-01-01T00:00:00.000Z', result: { content: [{ type: 'text', text }] } };
    await writeFile(join(where, recordingFileName(Date.UTC(2026, 0, 1), i)), JSON.stringify(recording));
  }
}

describe('mcp-retrofit infer', () => {
  it('reads the upstream record.dir by default and prints a tools: block', async () => {
    const dir = await tempFiles({ 'config.yaml': CONFIG });
    await record(dir, 'get/weather', ['{"city":"Paris","t":17}', '{"city":"Oslo","t":-2.5}']);
    await record(dir, 'hello', ['Hello there']);
    const r = await infer(['--config', join(dir, 'config.yaml'), '--upstream', 'w']);
    expect(r.code).toBe(0);
    expect(parse(r.stdout)).toEqual({
      tools: {
        'get/weather': { extract: { format: 'json' }, outputSchema: { type: 'object', properties: { city: { type: 'string' }, t: { type: 'number' } }, required: ['city', 't'] } },
        hello: { outputSchema: { type: 'string' } },
      },
    });
    expect(r.stdout).toContain('# hello: 1 sample of plain prose: proposed as a string (the text as it is)');
    expect(r.stderr).toBe('infer: 2 tools, 2 with an entry, from 3 results\n');
  });

  it('--explain TOOL says why each keyword of that tool\'s schema was chosen (issue 25)', async () => {
    const dir = await tempFiles({ 'config.yaml': CONFIG });
    await record(dir, 'get/weather', ['{"city":"Paris","t":17,"at":"2026-01-01T00:00:00Z"}', '{"city":"Oslo","t":-2.5,"at":"2026-01-02T00:00:00Z"}', '{"city":"Rome","t":20,"at":"2026-01-03T00:00:00Z","note":"sunny"}']);
    await record(dir, 'hello', ['Hello there']);
    const r = await infer(['--config', join(dir, 'config.yaml'), '--upstream', 'w', '--explain', 'get/weather']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('get/weather: 3 samples, read as json');
    expect(lines).toEqual(
      expect.arrayContaining([
        '/: 3 objects',
        '/city: required: present in all 3 objects',
        '/city: no enum: 3 strings seen, an enum needs 20',
        '/t: number, not integer: 1 value had a fraction',
        '/at: format date-time: every string seen (3) matches it',
        '/note: optional: present in 1 of 3 objects',
      ]),
    );
    expect(r.stdout).not.toContain('hello');
    const prose = await infer(['--config', join(dir, 'config.yaml'), '--upstream', 'w', '--explain', 'hello']);
    expect(prose.stdout).toContain('the schema is fixed by its kind');
    const both = await infer(['--config', join(dir, 'config.yaml'), '--tool', 'x', '--explain', 'y']);
    expect(both.code).toBe(2);
  });

  it('--tool takes a glob; --from another directory; nothing found is exit 1', async () => {
    const dir = await tempFiles({ 'config.yaml': CONFIG });
    await record(dir, 'get/weather', ['{"a":1}']);
    await record(dir, 'list', ['[1]']);
    const only = await infer(['--config', join(dir, 'config.yaml'), '--upstream', 'w', '--tool', 'get/*']);
    expect(Object.keys((parse(only.stdout) as { tools: object }).tools)).toEqual(['get/weather']);
    const none = await infer(['--config', join(dir, 'config.yaml'), '--upstream', 'w', '--from', join(dir, 'elsewhere')]);
    expect(none).toEqual({ code: 1, stdout: '', stderr: `infer: no results for upstream "w" from ${join(dir, 'elsewhere')}\n` });
  });

  it('scrubs the config secrets from what it prints', async () => {
    const dir = await tempFiles({ 'config.yaml': CONFIG });
    // The header value is the secret (here it carries a default token).
    await record(dir, 'echo', ['{"Bearer tok-abcdef": 1}']);
    const r = await infer(['--config', join(dir, 'config.yaml'), '--upstream', 'w']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('tok-abcdef');
    expect(r.stdout).toContain('[Redacted]');
  });

  it.each([
    [[], '--config FILE is required'],
    [['--config', 'c.yaml', '--bogus', 'x'], 'unknown argument "--bogus"'],
    [['--config', 'c.yaml'], '--upstream NAME is required: the config has 2 upstreams (w, other)'],
    [['--config', 'c.yaml', '--upstream', 'nope'], 'no upstream "nope" in the config (known: w, other)'],
    [['--config', 'c.yaml', '--upstream', 'other'], 'give --from DIR or --call FILE (upstream "other" has no record.dir)'],
    [['--config', 'c.yaml', '--upstream', 'w', '--call', 'calls.yaml'], 'calls.yaml: call #1: unknown key "args" (expected tool, arguments)'],
  ])('usage error %j', async (args, message) => {
    const dir = await tempFiles({ 'c.yaml': CONFIG, 'calls.yaml': '- { tool: t, args: {} }\n' });
    const r = await infer(args.map((a) => (a.endsWith('.yaml') ? join(dir, a) : a)));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message.replace('calls.yaml', join(dir, 'calls.yaml')));
  });

  it('reports config problems as FILE:LINE:COL and exits 1', async () => {
    const dir = await tempFiles({ 'config.yaml': 'upstreams:\n  w: { url: "http://x/mcp", record: { dri: x } }\n' });
    const r = await infer(['--config', join(dir, 'config.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'config.yaml')}:2:`);
  });
});
