/**
 * Regression: the worker dropped compiled tools past 1024 in insertion order while the pool's record of what
 * each worker knew never shrank, so the pool never sent the config again and every later job of the oldest
 * tool failed ("tool id 1 was never sent with its config"). The pool now decides what a worker keeps (the
 * least recently used past MAX_TOOLS, and the tools of policies no longer reachable, e.g. of a replaced
 * config) and each job tells the worker what to forget.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../src/json.js';
import type { PoolRequest } from '../../../../src/pipeline/offload/pool.js';
import { MAX_TOOLS } from '../../../../src/pipeline/offload/known.js';
import type { UpstreamPolicy } from '../../../../src/retrofit/policy.js';
import { upstreamWith } from '../../retrofit/helpers.js';
import { PROBE, pool } from './pools.js';


const RESULT: JsonObject = { content: [{ type: 'text', text: '{"a":1}' }] };

/** One upstream policy per tool: each its own ToolPolicy object, so its own tool id. */
function policies(n: number): UpstreamPolicy[] {
  return Array.from({ length: n }, (_, i) => upstreamWith({ [`t${i}`]: { outputSchema: { type: 'object' } } }));
}

function requestFor(policy: UpstreamPolicy, tool: string): PoolRequest {
  return { entry: policy.resolve(tool)!, policy, tool, revision: '2025-06-18', result: RESULT, bytes: 10 };
}

interface Probed {
  readonly toolId: number;
  readonly compiled: boolean;
  readonly forget: number[];
}

describe('regression: a worker past MAX_TOOLS compiled tools', () => {
  it('still retrofits the oldest tool after MAX_TOOLS others (the built worker)', async () => {
    const p = pool();
    const all = policies(MAX_TOOLS + 1);
    const run = (i: number) => p.run(requestFor(all[i]!, `t${i}`))!;
    expect((await run(0)).outcome).toMatchObject({ tool: 't0', outcome: 'extracted' });
    for (let i = 1; i <= MAX_TOOLS; i++) await run(i);
    expect((await run(0)).outcome).toMatchObject({ tool: 't0', outcome: 'extracted' });
    expect(p.tools).toBe(MAX_TOOLS);
  });

  it('evicts the least recently used tool, and tells the worker in the job that needs the room', async () => {
    const p = pool({ workerUrl: PROBE });
    const all = policies(MAX_TOOLS + 1);
    const run = async (i: number): Promise<Probed> => JSON.parse((await p.run(requestFor(all[i]!, `t${i}`))!).bytes!.toString()) as Probed;
    const ids: number[] = [];
    for (let i = 0; i < MAX_TOOLS; i++) ids.push((await run(i)).toolId);
    // t0 used again: now the most recent, so t1 is the one to go.
    expect(await run(0)).toMatchObject({ compiled: false, forget: [] });
    expect(await run(MAX_TOOLS)).toMatchObject({ compiled: true, forget: [ids[1]] });
    expect(await run(0)).toMatchObject({ compiled: false, forget: [] });
    expect(await run(1)).toMatchObject({ compiled: true, forget: [ids[2]] });
    expect(p.tools).toBe(MAX_TOOLS);
  });

  it('sends the config again after a failed job (its compile may be what failed)', async () => {
    const p = pool({ workerUrl: PROBE });
    const policy = upstreamWith({ throw: { outputSchema: { type: 'object' } }, t: { outputSchema: { type: 'object' } } });
    await expect(p.run(requestFor(policy, 'throw'))!).rejects.toThrow('engine threw');
    expect(p.tools).toBe(0);
    const next = JSON.parse((await p.run(requestFor(policy, 't'))!).bytes!.toString()) as Probed;
    expect(next).toMatchObject({ compiled: true, forget: [p.idOf(policy.resolve('throw')!)] });
  });

  it('frees the tools of a policy nobody holds any more (a replaced config) on both sides', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const p = pool({ workerUrl: PROBE });
    const kept = upstreamWith({ k: { outputSchema: { type: 'object' } } });
    // The replaced generation lives only in this call.
    const old = await (async () => JSON.parse((await p.run(requestFor(upstreamWith({ r: { outputSchema: { type: 'object' } } }), 'r'))!).bytes!.toString()) as Probed)();
    expect(p.tools).toBe(1);
    for (let i = 0; i < 100 && p.tools > 0; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(p.tools).toBe(0);
    const next = JSON.parse((await p.run(requestFor(kept, 'k'))!).bytes!.toString()) as Probed;
    expect(next).toMatchObject({ compiled: true, forget: [old.toolId] });
    expect(p.tools).toBe(1);
  });
});
