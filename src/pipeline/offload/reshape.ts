/**
 * A 2026-07-28 answer reshaped for a client of a session revision (src/protocol/modern.ts sessionAnswer), from
 * its bytes: checked for depth before anything recurses over it, and the answer written into shared memory, so
 * that it goes on to the session and, retrofitted, to a worker again without a copy (as the large messages the
 * links hold: src/stream/held.ts). The worker runs it (./worker.ts); src/upstream/modern-link.ts runs it itself
 * only when no worker can take the job.
 */
import { nestedTooDeeply } from '../../jsonrpc/strict.js';
import { sessionAnswer } from '../../protocol/modern.js';
import type { Reshaped } from './protocol.js';
import { sharedUtf8, utf8Text } from './shared.js';

export function reshapeAnswer(data: Uint8Array | string, clientId: string | number): Reshaped<Buffer> {
  if (nestedTooDeeply(data)) return { kind: 'deep' };
  const out = sessionAnswer(utf8Text(data), clientId);
  if (out.kind !== 'answer') return out;
  return { kind: 'answer', bytes: sharedUtf8(out.json) };
}
