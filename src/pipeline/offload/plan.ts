/**
 * Deciding, on the main thread and cheaply, whether a tools/call result is retrofitted on a worker thread.
 *
 * Only results of tools with a configured outputSchema are offloaded: their whole retrofit needs nothing but
 * the tool's config. Tools without one (natively declared schemas, projected from what tools/list taught
 * the gateway's NativeMemory) stay on the main thread: that memory lives there, and their projection is a
 * shallow copy, not a parse.
 */
import { isJsonObject, type JsonObject } from '../../json.js';
import type { PendingRequest } from '../request.js';
import type { ToolPolicy, UpstreamPolicy } from '../../retrofit/policy.js';
import { isNonFinal } from '../../retrofit/result.js';

/** Results whose text content is longer than this (UTF-16 code units) are retrofitted on a worker (256 KiB). */
export const OFFLOAD_BYTES = 256 * 1024;

/**
 * Length of the texts extraction would read (text blocks and embedded resources' text), stopping as soon as
 * `limit` is passed. No allocation: it runs for every tools/call answer.
 */
export function textLength(result: JsonObject, limit: number): number {
  const content = result.content;
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const block of content) {
    if (!isJsonObject(block)) continue;
    if (typeof block.text === 'string') total += block.text.length;
    else if (isJsonObject(block.resource) && typeof block.resource.text === 'string') total += block.resource.text.length;
    if (total > limit) return total;
  }
  return total;
}

/** A result picked for a worker: its tool's policy entry and its size estimate. */
export interface OffloadPlan {
  readonly entry: ToolPolicy;
  readonly tool: string;
  readonly result: JsonObject;
  readonly bytes: number;
}

/** The plan for `message` when it should go to a worker; undefined for the synchronous path. */
export function planOffload(request: PendingRequest, policy: UpstreamPolicy, message: JsonObject, threshold: number): OffloadPlan | undefined {
  if ((request.method !== 'tools/call' && request.method !== 'tasks/result') || request.tool === undefined) return undefined;
  const result = message.result;
  if (!isJsonObject(result)) return undefined;
  const bytes = textLength(result, threshold);
  if (bytes <= threshold || isNonFinal(result)) return undefined;
  const entry = policy.resolve(request.tool);
  if (!entry || entry.config.outputSchema === undefined) return undefined;
  return { entry, tool: request.tool, result, bytes };
}
