/**
 * Sessions the gateway mints for a `url:` upstream that issues none (a stateless Streamable HTTP server). A
 * client profile (`clients:`) is decided at initialize and remembered per session: with no Mcp-Session-Id, a
 * session-era client's later requests would carry nothing to find it by, and its profile would silently not
 * apply. So an initialize answered without one, for a client a profile matched, gets an id of the gateway's
 * (src/http/server/ids.ts: recognisable by any replica), under which the session table remembers what was
 * negotiated. The upstream never issued it: requests carrying it go upstream without it, and its DELETE is the
 * gateway's to answer. Without a matched profile nothing is minted: the exchange is as the upstream made it.
 */
import type { ClassifiedMessage } from '../../jsonrpc/classify.js';
import { isRevision, isStateless } from '../../protocol/era.js';
import { requestedRevision } from '../../protocol/negotiate.js';
import type { UpstreamPolicy } from '../../retrofit/policy.js';
import type { SessionState } from '../../session/state.js';
import { mintedSessionId } from '../server/ids.js';

/** What decides whether an initialize answer gets a minted session id. */
export interface MintInputs {
  /** The body's first message (only a lone initialize request qualifies). */
  readonly first: ClassifiedMessage | undefined;
  readonly batch: boolean;
  /** The answer's status, and the Mcp-Session-Id it carries. */
  readonly status: number;
  readonly assigned: string | undefined;
  /** The exchange's state (the client's clientInfo). */
  readonly state: SessionState | undefined;
  readonly policy: UpstreamPolicy | undefined;
  /** The replica's `sessionIdPrefix`. */
  readonly prefix: string | undefined;
}

/** The id to give the client in the initialize answer, or undefined (the answer goes as it came). */
export function mintSession(i: MintInputs): string | undefined {
  if (i.assigned !== undefined || i.status !== 200 || i.batch || i.first?.method !== 'initialize' || i.first.kind !== 'request') return undefined;
  const profiles = i.policy?.profiles;
  if (!profiles || !i.state) return undefined;
  // The headers go before the answer is read (an SSE one): matched on the revision the client asked for, which
  // it is answered as a rule (src/protocol/negotiate.ts). Its later requests are matched on the negotiated one.
  const revision = requestedRevision(i.first.message);
  if (!isRevision(revision) || isStateless(revision)) return undefined;
  return profiles.match({ ...i.state.client, revision }) ? mintedSessionId(i.prefix) : undefined;
}
