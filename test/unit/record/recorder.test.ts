/** createRecorder: what a recording holds, what is scrubbed, skipped, pruned and counted. */
import { existsSync } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { createRecorder } from '../../../src/record/index.js';
import { MAX_RECORDED_TOOLS, toolDir } from '../../../src/record/write.js';
import { capturingLogger, counter, filesIn, metrics, recorderConfig, tempRoot, text } from './helpers.js';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0, 0);

/** A clock that advances one millisecond per call, from T0. */
function clock(): () => number {
  let t = T0;
  return () => t++;
}

async function setup(record: { maxPerTool?: number; maxBytes?: number; secretNames?: string[] } = {}, secrets: readonly string[] = [], switches: readonly string[] = []) {
  const dir = await tempRoot();
  const m = metrics();
  const { log, lines } = capturingLogger();
  const config = recorderConfig({ dir, maxPerTool: record.maxPerTool ?? 20, maxBytes: record.maxBytes ?? 10_000, ...(record.secretNames && { secretNames: record.secretNames }) }, secrets, switches);
  const recorder = createRecorder(config, m, log, { now: clock() });
  return { dir, m, lines, recorder, config };
}

describe('createRecorder', () => {
  it('writes {upstream, tool, recordedAt, protocolRevision, argumentNames, result} under DIR/<upstream>/<tool>/', async () => {
    const { dir, m, recorder } = await setup();
    const result = text('{"city":"Paris","temperature":17}');
    recorder.offer({ upstream: 'w', tool: 'get/weather', result, arguments: { units: 1 }, revision: '2025-11-25' });
    await recorder.flush();
    const files = await filesIn(toolDir(dir, 'w', 'get/weather'));
    expect(files.map((f) => f.name)).toEqual(['20261130T120000000Z-000001.json']);
    expect(files[0]?.json).toEqual({ upstream: 'w', tool: 'get/weather', recordedAt: '2026-11-30T12:00:00.000Z', protocolRevision: '2025-11-25', argumentNames: ['units'], result });
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(1);
  });

  it('scrubs the upstream\'s secrets and argument string values from string values, never keys, and keeps argument names', async () => {
    const { dir, recorder } = await setup({}, ['s3cr3t-token']);
    const result = { content: [{ type: 'text', text: 'Weather for Reykjavik (key s3cr3t-token): cold' }], structuredContent: { Reykjavik: { note: 'in Reykjavik' } } };
    recorder.offer({ upstream: 'w', tool: 't', result, arguments: { city: 'Reykjavik', opts: { lang: ['Icelandic'] }, n: 3 } });
    await recorder.flush();
    const [file] = await filesIn(toolDir(dir, 'w', 't'));
    expect(JSON.stringify(file?.json)).not.toContain('s3cr3t-token');
    expect(file?.json.argumentNames).toEqual(['city', 'opts', 'n']);
    expect(file?.json.result).toEqual({
      content: [{ type: 'text', text: 'Weather for REDACTED (key REDACTED): cold' }],
      structuredContent: { Reykjavik: { note: 'in REDACTED' } },
    });
  });

  it('never touches keys, numbers, booleans or null inside a text\'s JSON (issue 25: memory and sequential-thinking)', async () => {
    const { dir, recorder } = await setup();
    // server-memory search_nodes {"query":"name"}: the key `name` stays; a value equal to the argument goes.
    recorder.offer({ upstream: 'w', tool: 'search', result: text('{\n  "entities": [{"name": "Grace", "entityType": "name"}]\n}'), arguments: { query: 'name' } });
    // sequential-thinking with branchId "true": the boolean stays a boolean.
    recorder.offer({ upstream: 'w', tool: 'think', result: text('{"thoughtNumber": 1, "nextThoughtNeeded": true, "branches": ["true"]}'), arguments: { branchId: 'true', thought: 'I think' } });
    // A key: value report: the key line stays, the value goes.
    recorder.offer({ upstream: 'w', tool: 'report', result: text('city: Reykjavik\nnote: cold in Reykjavik'), arguments: { city: 'city', place: 'Reykjavik' } });
    await recorder.flush();
    const texts = async (tool: string): Promise<string | undefined> => ((await filesIn(toolDir(dir, 'w', tool)))[0]?.json.result as { content: { text: string }[] }).content[0]?.text;
    expect(await texts('search')).toBe('{\n  "entities": [{"name": "Grace", "entityType": "REDACTED"}]\n}');
    expect(await texts('think')).toBe('{"thoughtNumber": 1, "nextThoughtNeeded": true, "branches": ["REDACTED"]}');
    expect(await texts('report')).toBe('city: REDACTED\nnote: cold in REDACTED');
  });

  it('scrubs argument values and secrets inside the longer strings of a text\'s JSON, and inside quotes in prose, keys left alone', async () => {
    const { dir, recorder } = await setup({}, ['sekrit-upstream-token-9876']);
    recorder.offer({ upstream: 'w', tool: 'greet', result: text('{"msg": "Hello Bartholomew, welcome", "header": "Bearer sekrit-upstream-token-9876", "Bartholomew": 1}'), arguments: { name: 'Bartholomew' } });
    // A quoted string in a quoted string (a text holding escaped JSON), and quotes in prose that are no JSON string.
    recorder.offer({ upstream: 'w', tool: 'nested', result: text('{"inner": "{\\"who\\": \\"Bartholomew\\", \\"note\\": \\"dear Bartholomew\\"}"}'), arguments: { name: 'Bartholomew' } });
    recorder.offer({ upstream: 'w', tool: 'prose', result: text('He said "hi Bartholomew" from "C:\\Users\\Bartholomew\\x"'), arguments: { name: 'Bartholomew' } });
    await recorder.flush();
    const texts = async (tool: string): Promise<string | undefined> => ((await filesIn(toolDir(dir, 'w', tool)))[0]?.json.result as { content: { text: string }[] }).content[0]?.text;
    expect(await texts('greet')).toBe('{"msg": "Hello REDACTED, welcome", "header": "Bearer REDACTED", "Bartholomew": 1}');
    const nested = await texts('nested');
    expect(nested).not.toContain('Bartholomew');
    expect(JSON.parse(JSON.parse(nested!).inner)).toEqual({ who: 'REDACTED', note: 'dear REDACTED' });
    expect(await texts('prose')).toBe('He said "hi REDACTED" from "C:\\Users\\REDACTED\\x"');
  });

  it('takes no switch for a secret: values under plain names, or short ones, are left alone', async () => {
    const { dir, recorder } = await setup({}, ['on'], ['true', 'verbose-mode']);
    recorder.offer({ upstream: 'w', tool: 't', result: text('{"on": true, "mode": "verbose-mode", "flag": "on"}') });
    await recorder.flush();
    const [file] = await filesIn(toolDir(dir, 'w', 't'));
    expect((file?.json.result as { content: { text: string }[] }).content[0]?.text).toBe('{"on": true, "mode": "verbose-mode", "flag": "on"}');
  });

  it('takes the values under record.secretNames (case-insensitive globs) for secrets too, still never short ones (issue 25)', async () => {
    const { dir, recorder } = await setup({ secretNames: ['x-SWITCH-*'] }, [], ['postgres://u:pw@db/x', 'on']);
    recorder.offer({ upstream: 'w', tool: 't', result: text('{"dsn": "postgres://u:pw@db/x", "flag": "on"}') });
    await recorder.flush();
    const [file] = await filesIn(toolDir(dir, 'w', 't'));
    expect((file?.json.result as { content: { text: string }[] }).content[0]?.text).toBe('{"dsn": "REDACTED", "flag": "on"}');
  });

  it('keeps the newest maxPerTool per tool, pruning as it writes', async () => {
    const { dir, recorder } = await setup({ maxPerTool: 3 });
    for (let i = 0; i < 7; i++) recorder.offer({ upstream: 'w', tool: 't', result: text(String(i)) });
    recorder.offer({ upstream: 'w', tool: 'other', result: text('x') });
    await recorder.flush();
    const files = await filesIn(toolDir(dir, 'w', 't'));
    expect(files.map((f) => (f.json.result as { content: { text: string }[] }).content[0]?.text)).toEqual(['4', '5', '6']);
    expect(await filesIn(toolDir(dir, 'w', 'other'))).toHaveLength(1);
  });

  it('skips and counts results over maxBytes: by the size given, by raw length, and after scrubbing', async () => {
    const { dir, m, recorder } = await setup({ maxBytes: 100 });
    recorder.offer({ upstream: 'w', tool: 't', result: text('small'), bytes: 101 });
    recorder.offer({ upstream: 'w', tool: 't', result: JSON.stringify({ jsonrpc: '2.0', id: 1, result: text('x'.repeat(100)) }) });
    recorder.offer({ upstream: 'w', tool: 't', result: text('y'.repeat(90)), bytes: 10 });
    recorder.offer({ upstream: 'w', tool: 't', result: text('fits') });
    await recorder.flush();
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'too_large' })).toBe(3);
    expect(await filesIn(toolDir(dir, 'w', 't'))).toHaveLength(1);
  });

  it('reads raw JSON-RPC responses (Buffer or string) and bare results, and ignores errors and non-final results', async () => {
    const { dir, m, recorder } = await setup();
    recorder.offer({ upstream: 'w', tool: 't', result: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, result: text('raw') })) });
    recorder.offer({ upstream: 'w', tool: 't', result: JSON.stringify(text('bare')) });
    recorder.offer({ upstream: 'w', tool: 't', result: JSON.stringify({ jsonrpc: '2.0', id: 8, error: { code: -32000, message: 'no' } }) });
    recorder.offer({ upstream: 'w', tool: 't', result: { ...text('failed'), isError: true } });
    recorder.offer({ upstream: 'w', tool: 't', result: { resultType: 'input_required', inputRequests: {} } });
    recorder.offer({ upstream: 'w', tool: 't', result: 'not json' });
    recorder.offer({ upstream: 'off', tool: 't', result: text('not recorded') });
    await recorder.flush();
    const texts = (await filesIn(toolDir(dir, 'w', 't'))).map((f) => (f.json.result as { content: { text: string }[] }).content[0]?.text);
    expect(texts).toEqual(['raw', 'bare']);
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(2);
    expect(await counter(m, 'recorded', { upstream: 'off' })).toBe(0);
  });

  it('counts failed writes and logs them once a minute, not once a sample', async () => {
    const { dir, m, lines, recorder } = await setup();
    // A file where the upstream's directory should be: every mkdir under it fails.
    await writeFile(join(dir, 'w'), 'in the way');
    for (let i = 0; i < 5; i++) recorder.offer({ upstream: 'w', tool: 't', result: text(String(i)) });
    await recorder.flush();
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'write_failed' })).toBe(5);
    expect(lines.filter((l) => String(l.msg).startsWith('record: cannot write'))).toHaveLength(1);
  });

  it('never throws into the caller: a value JSON cannot measure is counted, not thrown', async () => {
    const { m, recorder } = await setup();
    const circular: Record<string, unknown> = { content: [] };
    circular.self = circular;
    expect(() => recorder.offer({ upstream: 'w', tool: 't', result: circular as unknown as JsonObject })).not.toThrow();
    await recorder.flush();
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'write_failed' })).toBe(1);
  });

  it('drops and counts what arrives while the queue is full, and writes the rest', async () => {
    const dir = await tempRoot();
    const m = metrics();
    const recorder = createRecorder(recorderConfig({ dir, maxPerTool: 20, maxBytes: 10_000 }), m, capturingLogger().log, { now: clock(), maxQueueItems: 2 });
    // Offered in one tick: the drain loop starts only after the call that offered returns.
    for (const n of [1, 2, 3, 4]) recorder.offer({ upstream: 'w', tool: 't', result: text(`sample ${n}`) });
    await recorder.close();
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'queue_full' })).toBe(2);
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(2);
    expect(await filesIn(toolDir(dir, 'w', 't'))).toHaveLength(2);
  });

  it('skips, and counts as superseded, samples that maxPerTool newer ones of the same tool wait behind', async () => {
    const { dir, m, recorder } = await setup({ maxPerTool: 2 });
    for (const n of [1, 2, 3, 4, 5]) recorder.offer({ upstream: 'w', tool: 't', result: text(`t ${n}`) });
    recorder.offer({ upstream: 'w', tool: 'u', result: text('u 1') });
    await recorder.close();
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'superseded' })).toBe(3);
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(3);
    const kept = await filesIn(toolDir(dir, 'w', 't'));
    expect(kept).toHaveLength(2);
    // The newest two.
    expect(kept.map((f) => f.json.result)).toEqual([text('t 4'), text('t 5')]);
    expect(await filesIn(toolDir(dir, 'w', 'u'))).toHaveLength(1);
  });

  it('writes in batches, at most one every drainEveryMs: nothing before, then the samples that waited', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => void vi.useRealTimers());
    const { dir, m, recorder } = await setup({ maxPerTool: 2 });
    for (const n of [1, 2, 3]) recorder.offer({ upstream: 'w', tool: 't', result: text(`t ${n}`) });
    await vi.advanceTimersByTimeAsync(999);
    expect(await filesIn(toolDir(dir, 'w', 't'))).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    // The batch started; flush waits for it.
    await recorder.flush();
    expect((await filesIn(toolDir(dir, 'w', 't'))).map((f) => f.json.result)).toEqual([text('t 2'), text('t 3')]);
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'superseded' })).toBe(1);
  });

  it('takes new settings with configure, and ignores offers after close', async () => {
    const { dir, m, recorder, config } = await setup();
    recorder.configure(recorderConfig(undefined));
    recorder.offer({ upstream: 'w', tool: 't', result: text('off now') });
    recorder.configure(config);
    recorder.offer({ upstream: 'w', tool: 't', result: text('on again') });
    await recorder.close();
    recorder.offer({ upstream: 'w', tool: 't', result: text('after close') });
    await recorder.flush();
    expect(await filesIn(toolDir(dir, 'w', 't'))).toHaveLength(1);
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(1);
  });

  it('records at most MAX_RECORDED_TOOLS tools per upstream, counted on disk: a new tool past them is dropped as too_many_tools', async () => {
    const { dir, m, recorder } = await setup();
    // Directories of an earlier run count: the bound holds across restarts.
    await Promise.all(Array.from({ length: MAX_RECORDED_TOOLS }, (_, i) => mkdir(toolDir(dir, 'w', `old${i}`), { recursive: true })));
    recorder.offer({ upstream: 'w', tool: 'old7', result: text('{"a":1}') });
    recorder.offer({ upstream: 'w', tool: '../new', result: text('{"a":1}') });
    await recorder.flush();
    expect(await filesIn(toolDir(dir, 'w', 'old7'))).toHaveLength(1);
    expect(existsSync(toolDir(dir, 'w', '../new'))).toBe(false);
    expect(await readdir(join(dir, 'w'))).toHaveLength(MAX_RECORDED_TOOLS);
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'too_many_tools' })).toBe(1);
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(1);
  });

  it('regression: many argument strings pushed the upstream\'s secret out of what was scrubbed', async () => {
    const { dir, recorder } = await setup({}, ['tok-12345678']);
    // 64 argument strings, each longer than the secret: all are searched for, and the secret too.
    const paths = Array.from({ length: 64 }, (_, i) => `/home/grace/private/document-${String(i).padStart(3, '0')}.txt`);
    recorder.offer({ upstream: 'w', tool: 'read', result: text(`${paths.map((p) => `read ${p} (12 bytes)`).join('\n')}\nauth: tok-12345678`), arguments: { paths } });
    await recorder.flush();
    const [file] = await filesIn(toolDir(dir, 'w', 'read'));
    const written = JSON.stringify(file?.json);
    expect(written).not.toContain('tok-12345678');
    expect(paths.filter((p) => written.includes(p))).toEqual([]);
  });

  it('regression: a call with more argument strings than are searched for, or nested deeper, is not recorded (too_many_arguments)', async () => {
    const { dir, m, recorder } = await setup();
    // 70 paths: the 6 shortest were never searched for, and the recording kept them.
    const paths = Array.from({ length: 70 }, (_, i) => `/home/grace/private/document-${'x'.repeat(i)}.txt`);
    recorder.offer({ upstream: 'w', tool: 'read', result: text(paths.map((p) => `read ${p} (12 bytes)`).join('\n')), arguments: { paths } });
    let deep: JsonObject = { path: '/home/grace/diary.txt' };
    for (let i = 0; i < 70; i++) deep = { in: deep };
    recorder.offer({ upstream: 'w', tool: 'read', result: text('read /home/grace/diary.txt'), arguments: deep });
    // At the bounds, recorded: 64 distinct strings (repeats count once), nested 64 levels.
    let edge: JsonObject = { path: '/home/grace/notes.txt' };
    for (let i = 0; i < 62; i++) edge = { in: edge };
    recorder.offer({ upstream: 'w', tool: 'edge', result: text('read /home/grace/notes.txt'), arguments: { paths: [...paths.slice(0, 63), ...paths.slice(0, 63)], edge } });
    await recorder.flush();
    expect(existsSync(toolDir(dir, 'w', 'read'))).toBe(false);
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'too_many_arguments' })).toBe(2);
    const [file] = await filesIn(toolDir(dir, 'w', 'edge'));
    expect(file?.json.result).toEqual(text('read REDACTED'));
  });

  it('regression: a file was bounded by maxBytes only before it was indented (a 240 KB answer of nested arrays made a 98 MB file)', async () => {
    const { dir, m, recorder } = await setup({ maxBytes: 262_144 });
    const nest = `${'['.repeat(400)}1${']'.repeat(400)}`;
    const raw = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"v":[${Array(300).fill(nest).join(',')}]}}}`;
    recorder.offer({ upstream: 'w', tool: 'deep', result: raw });
    await recorder.flush();
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(1);
    const [name] = await readdir(toolDir(dir, 'w', 'deep'));
    expect((await stat(join(toolDir(dir, 'w', 'deep'), name!))).size).toBeLessThan(262_144 + 1024);
  });
});
