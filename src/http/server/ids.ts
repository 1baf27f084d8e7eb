import { randomUUID } from 'node:crypto';

/** The id of a session the gateway holds: a UUID, after the replica's `sessionIdPrefix` and a dot when set. */
export function sessionId(prefix: string | undefined): string {
  return prefix === undefined ? randomUUID() : `${prefix}.${randomUUID()}`;
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
