/**
 * Negotiating each side on its own. The gateway is the server its clients talk to: when a client asks for a
 * revision with structured output (2025-06-18 or later) and the upstream answers one without (2025-03-26 or
 * older — the old SDK releases that the servers answering with text are built on), the client is answered
 * the revision it asked for and the upstream keeps its own. Within one era nothing is bridged up: a
 * 2025-06-18 server in front of a 2025-11-25 client is left alone and the client adapts, as the protocol
 * intends. Clients of 2025-03-26 and older are never bridged up: their revision has no structured output.
 * A client that asked for an older session revision than the upstream answered is answered its own (bridged
 * down): the gateway serves every session revision by shaping what it passes on, and a server that supports
 * the requested revision answers it. That is how a shared child (`share: true`), negotiated once with the
 * first client, answers every later one.
 */
import { eraOf, FIRST_HEADER_REVISION, isKnownRevision, isRevision, isStateless, LATEST_STATEFUL_REVISION } from './era.js';

/** The outcome of one initialize exchange. */
export interface Negotiated {
  /** The revision the client is answered (InitializeResult.protocolVersion as the gateway sends it). */
  readonly client: string;
  /** The revision the upstream answered. */
  readonly upstream: string;
  /** True when the two differ because the gateway bridged the client (up, or down to its own older revision). */
  readonly bridged: boolean;
}

/** The revision an initialize request asks for (its `params.protocolVersion`), when it names one. */
export function requestedRevision(initialize: unknown): string | undefined {
  if (typeof initialize !== 'object' || initialize === null) return undefined;
  const params = (initialize as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const asked = (params as { protocolVersion?: unknown }).protocolVersion;
  return typeof asked === 'string' ? asked : undefined;
}

/** Longest client label logged: a client names itself, and a log line is no place for a novel. */
const CLIENT_LABEL_MAX = 120;

/**
 * Who an initialize request says is asking: `clientInfo.name@version` (or the name alone), for the request log
 * line, so an operator can write `clients:` profiles for what really connects.
 */
export function clientLabel(initialize: unknown): string | undefined {
  if (typeof initialize !== 'object' || initialize === null) return undefined;
  const params = (initialize as { params?: unknown }).params;
  const info = typeof params === 'object' && params !== null ? (params as { clientInfo?: unknown }).clientInfo : undefined;
  if (typeof info !== 'object' || info === null) return undefined;
  const { name, version } = info as { name?: unknown; version?: unknown };
  if (typeof name !== 'string') return undefined;
  const label = typeof version === 'string' ? `${name}@${version}` : name;
  return label.length > CLIENT_LABEL_MAX ? `${label.slice(0, CLIENT_LABEL_MAX)}…` : label;
}

/**
 * `requested`: the initialize request's `params.protocolVersion`; `answered`: the upstream's
 * InitializeResult.protocolVersion; `bridge`: the upstream's `bridge` setting.
 */
export function negotiate(requested: unknown, answered: string, bridge: boolean): Negotiated {
  const unbridged = { client: answered, upstream: answered, bridged: false };
  if (!bridge || !isRevision(requested) || !isRevision(answered)) return unbridged;
  // Down: an older session revision than the upstream's session revision. Its shape (src/protocol/era.ts)
  // follows the client's revision, so the client gets what its revision has and nothing newer.
  if (requested < answered && isKnownRevision(requested) && !isStateless(answered)) return { client: requested, upstream: answered, bridged: true };
  if (eraOf(answered) !== 'none' || eraOf(requested) === 'none') return unbridged;
  // A revision the gateway serves with sessions, else the newest such one (initialize is stateful).
  const client = isKnownRevision(requested) && !isStateless(requested) ? requested : LATEST_STATEFUL_REVISION;
  return { client, upstream: answered, bridged: true };
}

/**
 * The `MCP-Protocol-Version` header to send an HTTP upstream, given the client's and what is known of the
 * session: for a session bridged over an upstream before 2025-06-18 none (revisions before it have no such
 * header, and a server that reads it rejects values it does not know); for one bridged down the upstream's
 * own revision (it answered that, not the client's, which it may refuse), whether or not the client sent one;
 * otherwise the client's own, unchanged. A replica that never saw the session's initialize forwards the
 * client's header: the old servers that sessions are bridged up for do not read it.
 */
export function upstreamProtocolHeader(clientHeader: string | undefined, session: Negotiated | undefined): string | undefined {
  if (session === undefined) return clientHeader;
  if (session.upstream < FIRST_HEADER_REVISION) return undefined;
  // A header naming another revision than the session's (a 2026-07-28 request) goes as it is: not ours to fix.
  const own = clientHeader === undefined || clientHeader === session.client;
  return session.bridged && session.client < session.upstream && own ? session.upstream : clientHeader;
}
