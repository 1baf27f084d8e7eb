/** readRecordings: what the recorder wrote comes back per tool, oldest first; junk is reported, not fatal. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRecorder, readRecordings } from '../../../src/record/index.js';
import { samplesByToolDir } from '../../../src/record/read.js';
import { toolDir } from '../../../src/record/write.js';
import { capturingLogger, metrics, recorderConfig, tempRoot, text } from './helpers.js';

describe('readRecordings', () => {
  it('reads back what the recorder wrote, with the exact tool names', async () => {
    const dir = await tempRoot();
    let t = Date.UTC(2026, 0, 1);
    const recorder = createRecorder(recorderConfig({ dir, maxPerTool: 5, maxBytes: 10_000 }), metrics(), capturingLogger().log, { now: () => t++ });
    for (const [tool, value] of [['a/b', '1'], ['A/b', '2'], ['a/b', '3']] as const) recorder.offer({ upstream: 'w', tool, result: text(value), revision: '2026-07-28' });
    await recorder.close();
    const { recordings, problems } = await readRecordings(dir, 'w');
    expect(problems).toEqual([]);
    expect(recordings.map((r) => [r.tool, (r.result.content as { text: string }[])[0]?.text, r.protocolRevision])).toEqual([
      ['A/b', '2', '2026-07-28'],
      ['a/b', '1', '2026-07-28'],
      ['a/b', '3', '2026-07-28'],
    ]);
  });

  it('reports files that are not recordings of this upstream, skips other names, and reads a missing dir as empty', async () => {
    const dir = await tempRoot();
    const tool = toolDir(dir, 'w', 't');
    await mkdir(tool, { recursive: true });
    await writeFile(join(tool, '20260101T000000000Z-000001.json'), '{"upstream":"other","tool":"t","result":{}}');
    await writeFile(join(tool, '20260101T000000000Z-000002.json'), '{not json');
    await writeFile(join(tool, '20260101T000000000Z-000003.json'), '{"upstream":"w","tool":"t"}');
    await writeFile(join(tool, 'README.txt'), 'ignored');
    const { recordings, problems } = await readRecordings(dir, 'w');
    expect(recordings).toEqual([]);
    expect(problems.map((p) => p.slice(tool.length + 1))).toEqual([
      '20260101T000000000Z-000001.json: recorded for upstream "other", not "w"',
      '20260101T000000000Z-000002.json: not JSON',
      '20260101T000000000Z-000003.json: not a recording (needs upstream, tool and result)',
    ]);
    expect(await readRecordings(join(dir, 'nowhere'), 'w')).toEqual({ recordings: [], problems: [] });
  });

  // Regression (review of the operator features, 2026-12-07): the console's Learn page read every recording of an
  // upstream at once (1,000 files held ~760 MB); it now reads one tool directory at a time.
  it('hands out one tool directory at a time (the Learn page)', async () => {
    const dir = await tempRoot();
    let t = Date.UTC(2026, 0, 1);
    const recorder = createRecorder(recorderConfig({ dir, maxPerTool: 5, maxBytes: 10_000 }), metrics(), capturingLogger().log, { now: () => t++ });
    for (const [tool, value] of [['x', '1'], ['y', '2'], ['x', '3'], ['z', '4']] as const) recorder.offer({ upstream: 'w', tool, result: text(value) });
    await recorder.close();
    const batches: string[][] = [];
    for await (const batch of samplesByToolDir(dir, 'w')) batches.push(batch.samples.map((s) => s.tool));
    expect(batches).toEqual([['x', 'x'], ['y'], ['z']]);
  });
});
