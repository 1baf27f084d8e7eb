/**
 * Recording's tap on the rewrite pipeline: every tools/call answer of an upstream that records
 * (`policy.record` of the request's config generation) is offered to the recorder (src/record/), as the
 * upstream sent it, before any retrofit, once per request. The rewrite entry point calls it, so every
 * transport records the same way. Offering is O(1) and never waits: the recorder queues, and parses,
 * scrubs and writes on its own drain loop.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { RecordSample } from '../record/index.js';
import { textLength } from './offload/plan.js';
import type { PendingRequest } from './request.js';

/** What the pipeline needs of a recorder (src/record/recorder.ts `Recorder`). */
export interface RecordSink {
  offer(sample: RecordSample): void;
}

/** Offers answers of recording upstreams; anything else is ignored at the cost of a property read. */
export interface RecordTap {
  /** A parsed answer's `result` (an error response, whose result is absent, is not offered). */
  parsed(request: PendingRequest, result: unknown): void;
  /** The raw bytes of an answer a worker parses (the recorder parses them again, off the call's path). */
  raw(request: PendingRequest, raw: Buffer | string): void;
}

const NONE: RecordTap = { parsed: () => {}, raw: () => {} };

export function createRecordTap(sink: RecordSink | undefined): RecordTap {
  if (!sink) return NONE;
  // A response replayed on a resumed stream is rewritten again: it was offered the first time.
  const offered = new WeakSet<PendingRequest>();

  function take(request: PendingRequest): { readonly tool: string; readonly limit: number } | undefined {
    const record = request.policy?.record;
    if (record === undefined || request.method !== 'tools/call' || request.tool === undefined || offered.has(request)) return undefined;
    offered.add(request);
    return { tool: request.tool, limit: record.maxBytes };
  }

  function sample(request: PendingRequest, tool: string, result: JsonObject | Buffer | string, bytes?: number): RecordSample {
    return {
      upstream: request.upstream,
      tool,
      result,
      revision: request.revision,
      ...(bytes !== undefined && { bytes }),
      ...(request.arguments !== undefined && { arguments: request.arguments }),
    };
  }

  return {
    parsed(request, result) {
      if (!isJsonObject(result)) return;
      const taken = take(request);
      if (!taken) return;
      // Its text, counted up to just past the bound: a lower bound of its JSON's size, enough to skip a result
      // that is too large without serialising it; the recorder checks the exact size before writing.
      sink.offer(sample(request, taken.tool, result, textLength(result, taken.limit)));
    },
    raw(request, raw) {
      const taken = take(request);
      if (taken) sink.offer(sample(request, taken.tool, raw));
    },
  };
}
