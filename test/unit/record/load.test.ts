/**
 * The recorder under a burst: 1,000 offers in a tight loop. offer() does no I/O and no waiting (nothing is
 * on disk when the loop returns), the queue takes what its bounds allow and counts every other sample as a
 * drop, queued samples that maxPerTool newer ones of their tool supersede are skipped (and counted), and
 * each tool ends with at most maxPerTool files. Counts, not timings.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRecorder } from '../../../src/record/index.js';
import { toolDir } from '../../../src/record/write.js';
import { capturingLogger, counter, filesIn, metrics, recorderConfig, tempRoot, text } from './helpers.js';

const TOOLS = ['alpha', 'beta', 'Gamma', 'delta/epsilon'];
const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

describe('recorder under load', () => {
  it('1,000 offers: the queue bound decides what is kept, every other sample is a counted drop', async () => {
    const dir = await tempRoot();
    const m = metrics();
    const recorder = createRecorder(recorderConfig({ dir, maxPerTool: 10, maxBytes: 10_000 }), m, capturingLogger().log, { maxQueueItems: 100 });
    for (let i = 0; i < 1000; i++) recorder.offer({ upstream: 'w', tool: TOOLS[i % TOOLS.length]!, result: text(`{"n":${i}}`), bytes: 20 });
    // The loop returned before anything was written: offer() only queues.
    expect(await exists(join(dir, 'w'))).toBe(false);
    await recorder.flush();
    // Of the 100 queued, 25 per tool: the newest 10 of each are written, the 15 before them superseded.
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(40);
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'superseded' })).toBe(60);
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'queue_full' })).toBe(900);
    for (const tool of TOOLS) {
      const files = await filesIn(toolDir(dir, 'w', tool));
      expect(files).toHaveLength(10);
      // The newest survive: the queued samples were offers 0..99, so each tool keeps its last ten of those.
      const ns = files.map((f) => JSON.parse((f.json.result as { content: { text: string }[] }).content[0]!.text) as { n: number });
      expect(ns.map((x) => x.n)).toEqual(Array.from({ length: 10 }, (_, k) => 60 + TOOLS.indexOf(tool) + 4 * k));
    }
    // Once drained, the queue takes samples again.
    recorder.offer({ upstream: 'w', tool: 'alpha', result: text('{"n":1000}'), bytes: 20 });
    await recorder.close();
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(41);
  });

  it('the byte bound holds too: large samples fill the queue sooner', async () => {
    const dir = await tempRoot();
    const m = metrics();
    const recorder = createRecorder(recorderConfig({ dir, maxPerTool: 1000, maxBytes: 100_000 }), m, capturingLogger().log, { maxQueueItems: 1000, maxQueueBytes: 50_000 });
    const big = text('x'.repeat(9_000));
    for (let i = 0; i < 1000; i++) recorder.offer({ upstream: 'w', tool: 'big', result: big, bytes: 10_000 });
    await recorder.close();
    expect(await counter(m, 'recorded', { upstream: 'w' })).toBe(5);
    expect(await counter(m, 'recordDrops', { upstream: 'w', reason: 'queue_full' })).toBe(995);
    expect(await filesIn(toolDir(dir, 'w', 'big'))).toHaveLength(5);
  });
});
