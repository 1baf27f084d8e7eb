import { randomUUID } from 'node:crypto';

/** The id of a session the gateway holds: a UUID, after the replica's `sessionIdPrefix` and a dot when set. */
export function sessionId(prefix: string | undefined): string {
  return prefix === undefined ? randomUUID() : `${prefix}.${randomUUID()}`;
}

/**
 * What starts (after the prefix) the id of a session the gateway minted for a `url:` upstream that issues none
 * (src/http/proxy/minted.ts): so any replica knows the upstream never issued it, even one that never saw it.
 */
const MINTED_MARK = 'mr-';
const MINTED_ID = /^(?:[\w-]{1,64}\.)?mr-[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/;

/** A minted session id: `[<prefix>.]mr-<uuid>`. */
export function mintedSessionId(prefix: string | undefined): string {
  const id = `${MINTED_MARK}${randomUUID()}`;
  return prefix === undefined ? id : `${prefix}.${id}`;
}

/** The id is one the gateway minted (by whichever replica), not the upstream's. */
export function isMintedSessionId(id: string): boolean {
  return id.includes(MINTED_MARK) && MINTED_ID.test(id);
}

/**
 * Request ids as Fastify's default makes them (`req-<base 36>`), for every request the gateway serves: the id
 * of its log lines.
 */
export function requestIds(): () => string {
  let next = 0;
  return () => {
    next = next === 2_147_483_647 ? 0 : next + 1;
    return `req-${next.toString(36)}`;
  };
}
