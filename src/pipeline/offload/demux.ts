/**
 * A long line of a shared stdio child that is not an answer to a session (a notification, a server→client
 * request, an answer whose id is not at its ends, a batch), sorted out on a worker instead of on the event loop
 * (src/upstream/shared-stdio.ts asks for it): for each message, what it is routed by (src/jsonrpc/multiplex.ts
 * RoutingFacts), and as bytes in shared memory its own JSON when it is one of a batch, and the same with the
 * gateway's wire id or token restored when it holds one (each with the number literals a double cannot hold as
 * the child wrote them: src/json-literals.ts). Whoever routes it picks which bytes go where.
 */
import { lazyTrail, stringifyKept, type LiteralTrail } from '../../json-literals.js';
import { isJsonObject } from '../../json.js';
import { restoreWire, routingFacts, type RoutingFacts } from '../../jsonrpc/multiplex.js';
import { nestedTooDeeply } from '../../jsonrpc/strict.js';
import { asBuffer, sharedUtf8, utf8Text } from './shared.js';

export interface DemuxedMessage<B = Uint8Array> {
  readonly facts: RoutingFacts;
  /** Its JSON, when it is one message of a batch (alone, it is the line itself). */
  readonly json?: B;
  /** Its JSON with the gateway's wire id or token restored (restoreWire), when it holds one. */
  readonly restored?: B;
}

/** Not JSON, nested past MAX_DEPTH, or the line's messages (`batch`: it was an array). */
export type Demuxed<B = Uint8Array> = { readonly kind: 'invalid' } | { readonly kind: 'deep' } | { readonly kind: 'messages'; readonly batch: boolean; readonly messages: readonly DemuxedMessage<B>[] };

/** `m` sorted out; its JSON written again with the number literals of its text (`trail`: asked for only then). */
function demuxOne(m: unknown, alone: boolean, trail: () => LiteralTrail | undefined): DemuxedMessage<Buffer> {
  const restored = isJsonObject(m) ? restoreWire(m) : undefined;
  return { facts: routingFacts(m), ...(!alone && { json: sharedUtf8(stringifyKept(m, trail())) }), ...(restored && { restored: sharedUtf8(stringifyKept(restored, trail())) }) };
}

/** Sort out `data` (a line's text or UTF-8 bytes), checked for depth before anything recurses over it. */
export function demuxLine(data: Uint8Array | string): Demuxed<Buffer> {
  if (nestedTooDeeply(data)) return { kind: 'deep' };
  const text = utf8Text(data);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'invalid' };
  }
  const trail = lazyTrail(text);
  if (!Array.isArray(parsed)) return { kind: 'messages', batch: false, messages: [demuxOne(parsed, true, trail)] };
  return { kind: 'messages', batch: true, messages: parsed.map((m, i) => demuxOne(m, false, () => trail()?.children.get(String(i)))) };
}

/** A worker's demux with its bytes as Buffers over the same (shared) memory. */
export function demuxed(d: Demuxed): Demuxed<Buffer> {
  if (d.kind !== 'messages') return d;
  const messages = d.messages.map((m) => ({ facts: m.facts, ...(m.json && { json: asBuffer(m.json) }), ...(m.restored && { restored: asBuffer(m.restored) }) }));
  return { kind: 'messages', batch: d.batch, messages };
}
