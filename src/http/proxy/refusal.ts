/**
 * An `initialize` the upstream refused with 400 (JSON): read up to REFUSAL_BYTES of the answer and offer it to
 * the route's hook (src/http/front/url-modern.ts takes over when the upstream serves only 2026-07-28); when
 * the hook does not take it, the refusal reaches the client as it came — whole when it was short, streamed
 * on when it was longer than anything worth reading.
 */
import type { ServerResponse } from 'node:http';
import { RetrofitError } from '../../errors.js';
import type { UpstreamAnswer } from '../../upstream/exchange.js';
import { toClientHeaders } from '../../upstream/headers.js';
import { pipeBody } from '../write.js';

/** How much of a refused initialize's answer is read for the hook. */
export const REFUSAL_BYTES = 64 * 1024;

/**
 * `handed`: the hook answers the client (and logs the exchange); `relayed`: the client got the refusal;
 * `aborted`: the client went away while it was streamed; `failed`: the upstream's body failed before a byte of
 * it was written (the caller answers the client with the gateway's error). `read` is called once the answer
 * was read (to release the exchange's pending requests).
 */
export async function relayRefusal(
  answer: UpstreamAnswer,
  res: ServerResponse,
  take: (body: Buffer) => boolean,
  read: () => void,
  deadline: { readonly upstream: string; readonly timeoutMs: number },
): Promise<{ kind: 'handed' | 'relayed' | 'aborted' } | { kind: 'failed'; error: unknown }> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Held within the upstream's timeoutMs, as any body the gateway holds: one that stalls fails the exchange.
  const timer = setTimeout(() => answer.body.destroy(new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', [deadline.upstream, deadline.timeoutMs])), deadline.timeoutMs);
  // Read by hand, not with for-await: leaving that loop would destroy the body, whose rest is still wanted.
  try {
    while (size <= REFUSAL_BYTES) {
      const next = await answer.body.next();
      if (next.done) break;
      chunks.push(next.value);
      size += next.value.length;
    }
  } catch (error) {
    read();
    return { kind: 'failed', error };
  } finally {
    clearTimeout(timer);
  }
  const body = Buffer.concat(chunks, size);
  read();
  if (size <= REFUSAL_BYTES && take(body)) return HANDED;
  if (size > REFUSAL_BYTES) {
    // Too long to be a refusal worth reading: the rest follows as it comes.
    res.writeHead(answer.statusCode, toClientHeaders(answer.headers, { dropLength: false }));
    res.write(body);
    if (!(await pipeBody(res, answer.body))) return ABORTED;
    res.end();
    return RELAYED;
  }
  const out = toClientHeaders(answer.headers, { dropLength: true });
  out['content-length'] = body.length;
  res.writeHead(answer.statusCode, out);
  res.end(body);
  return RELAYED;
}

const HANDED = { kind: 'handed' } as const;
const RELAYED = { kind: 'relayed' } as const;
const ABORTED = { kind: 'aborted' } as const;
