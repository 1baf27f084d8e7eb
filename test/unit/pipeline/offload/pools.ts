/** Offload pools for tests: the probe worker, and a pool closed when the test that made it ends. */
import { onTestFinished } from 'vitest';
import { OffloadPool } from '../../../../src/pipeline/offload/pool.js';

/** A stand-in worker that answers with what it was sent (test/fixtures/offload/probe-worker.mjs). */
export const PROBE = new URL('../../../fixtures/offload/probe-worker.mjs', import.meta.url);

/** A pool (the built worker unless `workerUrl` says otherwise), closed when the test ends. */
export function pool(options: ConstructorParameters<typeof OffloadPool>[0] = {}): OffloadPool {
  const p = new OffloadPool(options);
  onTestFinished(() => p.close());
  return p;
}
