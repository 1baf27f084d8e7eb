/**
 * A large batch (bytes) read on the worker that holds answers the pipeline must rewrite: each such answer is
 * handed to the pipeline as its own bytes (the span the worker found), as a single large answer is, so a
 * 20 MB tools/call result in a batch is parsed and retrofitted on the worker, never on the event loop. The
 * batch is then joined again in its order around the worker's bytes (src/pipeline/offload/splice.ts), every
 * other message as the upstream wrote it.
 */
import type { JsonObject } from '../json.js';
import type { Log } from '../log.js';
import type { InspectedMessage } from '../pipeline/offload/inspect.js';
import { joinMessages } from '../pipeline/offload/splice.js';
import type { Rewriter, Rewritten } from '../pipeline/rewrite.js';
import { fromStub, literalTrails, settledFromBytes, trailsOnce, written, type Awaited, type Inbound, type InboundMessage, type InboundOptions } from './inbound-message.js';
import type { SessionState } from './state.js';

/** One message of the batch: an object, and where its own bytes lie in the batch. */
export type Placed = InspectedMessage & { readonly stub: JsonObject; readonly span: NonNullable<InspectedMessage['span']> };

/** What the pipeline makes of one answer from its own bytes: a worker's job for a large one. */
function rewriteOwn<S>(rewriter: Rewriter, awaited: Awaited<S>, own: Buffer, log: Log): Rewritten | Promise<Rewritten> {
  const expect = awaited.pending.expect;
  // Only awaited rewrites are handed over (src/session/inbound.ts readingOf); anything else is read whole.
  if (expect.kind !== 'rewrite') return { kind: 'mismatch' };
  // A tool without a configured schema whose own structuredContent must change: projected on the worker.
  const projected = expect.nativeOnly === true ? rewriter.projectNative(expect.request, own, awaited.id, log) : undefined;
  return projected ?? rewriter.respond(expect.request, { raw: own, id: awaited.id }, log);
}

/**
 * `messages` (every one placed) through the session, the answers awaited in `rewrite` (by index) rewritten from
 * their own bytes. Undefined when the pipeline found one of them not to be the answer its stub said (the
 * caller then reads the batch whole); nothing is settled before every rewrite is done, so that stays possible.
 */
export async function rewriteBatch<S>(state: SessionState<S>, rewriter: Rewriter, data: Buffer, messages: readonly Placed[], rewrite: ReadonlyMap<number, Awaited<S>>, log: Log, options: InboundOptions): Promise<Inbound<S> | undefined> {
  const own = (m: Placed): Buffer => data.subarray(m.span[0], m.span[1]);
  const done = await Promise.all(messages.map((m, i) => {
    const awaited = rewrite.get(i);
    return awaited && rewriteOwn(rewriter, awaited, own(m), log);
  }));
  if (done.some((r) => r?.kind === 'mismatch')) return undefined;
  const strict = options.strict === true;
  const out: InboundMessage<S>[] = [];
  const parts: Buffer[] = [];
  // In the batch's order, as the parsed path settles them.
  for (const [i, m] of messages.entries()) {
    const r = done[i];
    const awaited = rewrite.get(i);
    const one = r && r.kind !== 'mismatch' && awaited ? settledFromBytes(state, awaited, r, strict) : fromStub(state, rewriter, m, own(m), strict);
    const json = one.replaced === undefined ? own(m) : written(one, m.literal, literalTrails([one], trailsOnce(false, 1, own(m)))?.[0]);
    parts.push(Buffer.isBuffer(json) ? json : Buffer.from(json, 'utf8'));
    out.push(options.split === true ? { ...one, json } : one);
  }
  if (!out.some((m) => m.replaced !== undefined)) return { messages: out, batch: true };
  return { out: joinMessages(parts, true), messages: out, batch: true };
}
