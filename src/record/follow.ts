/**
 * Keeping the recorder's settings (each upstream's `record:`, the secrets it scrubs) in step with the config
 * generation being served. A reload swaps generations without telling anyone when only `record:` changed
 * (src/config/generations.ts announces tool changes only), so the recorder is configured lazily instead: the
 * first sample offered after a swap configures it from the new generation (one reference comparison per
 * offer). Whether a request's answer is offered at all is decided by that request's own generation
 * (UpstreamPolicy.record); where and how it is written, by the generation serving when it arrives.
 */
import type { Recorder, RecorderConfig, RecordSample } from './recorder.js';

/** The recorder seen through the generation being served. */
export interface FollowingRecorder {
  offer(sample: RecordSample): void;
}

/** `current()` returns the config being served (Generations.current.config); compared by identity. */
export function followGenerations(recorder: Pick<Recorder, 'offer' | 'configure'>, current: () => RecorderConfig): FollowingRecorder {
  let configured = current();
  return {
    offer(sample) {
      const now = current();
      if (now !== configured) {
        configured = now;
        recorder.configure(now);
      }
      recorder.offer(sample);
    },
  };
}
