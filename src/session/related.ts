/**
 * The request a notification or server→client request of the upstream belongs to, in a gateway-owned session
 * (./owned.ts): the one the link says it came with, while that one waits; else the one its progress token
 * names; else the only one in flight. A batch's answers are all taken off the pending table before its messages
 * are routed (./inbound.ts), so a message that comes before an answer in the same batch is told of the requests
 * answered after it (`answeredLater`): it finds its request as it would have had it come on a line of its own.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { Pending, PendingTable } from './pending.js';

/** The request `message` belongs to, if any (see the module comment). */
export function relatedRequest<S>(pending: PendingTable<S>, message: JsonObject, related: string | number | undefined, answeredLater: readonly Pending<S>[]): Pending<S> | undefined {
  if (related !== undefined) {
    const owner = pending.peek(related);
    if (owner && !owner.answered) return owner;
    const later = answeredLater.find((p) => p.id === related);
    if (later) return later;
  }
  const params = isJsonObject(message.params) ? message.params : undefined;
  const token = message.method === 'notifications/progress' ? params?.progressToken : isJsonObject(params?._meta) ? params._meta.progressToken : undefined;
  if (typeof token === 'string' || typeof token === 'number') {
    const owner = pending.find((p) => p.progressToken === token) ?? answeredLater.find((p) => p.progressToken === token);
    if (owner) return owner;
  }
  if (answeredLater.length === 0) return pending.single();
  return answeredLater.length === 1 && pending.size === 0 ? answeredLater[0] : undefined;
}
