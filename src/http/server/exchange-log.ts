/**
 * One log line and one count per HTTP exchange, for every route: what was asked (method, tool), the revision
 * that governed it, what the client got (HTTP status, and for an error answer its JSON-RPC code and the
 * gateway's error code), how it ended (`ok`, `error`, `aborted`) and how long it took. The method label is an
 * MCP method or `other` (src/protocol/methods.ts), so no client can grow the metrics without bound.
 */
import type { ServerResponse } from 'node:http';
import type { ClassifiedBody } from '../../jsonrpc/classify.js';
import { infoFields, type Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { methodLabel, revisionLabel } from '../../protocol/methods.js';

/** What is known of an exchange by the time it ends. */
export interface ExchangeRecord {
  readonly reqId: string;
  readonly upstream: string;
  /** Its Mcp-Session-Id, or the legacy connection it belongs to. */
  readonly session?: string | undefined;
  /** The method label (see labelOf), or the HTTP verb. */
  readonly method: string;
  readonly tool?: string | undefined;
  /** The client profile (`clients:`) the answer was shaped for, when one matched. */
  readonly profile?: string | undefined;
  /** The governing revision and where it came from, when known. */
  readonly revision?: string | undefined;
  readonly revisionSource?: string | undefined;
  /**
   * initialize: the revision the client asked for (params.protocolVersion). The request itself is governed
   * by the rule (no header yet: 2025-03-26, source default); this says what the session is about to speak.
   */
  readonly requested?: string | undefined;
  /** initialize: who the client says it is (`clientInfo.name@version`). */
  readonly client?: string | undefined;
  /** The HTTP status the client got (0: none, the connection ended). */
  readonly status: number;
  /** The JSON-RPC error code of the answer, when it was an error. */
  readonly rpcError?: number | undefined;
  /** Its `data.code`, when it is one of the gateway's own (RETROFIT_ERR_*). */
  readonly errorCode?: string | undefined;
  /** The client went away before the answer was complete. */
  readonly aborted?: boolean | undefined;
  /** Discovery routes: the path asked for, and whether the document was rewritten. */
  readonly path?: string | undefined;
  readonly rewritten?: boolean | undefined;
  /** performance.now() when the exchange began. */
  readonly started: number;
}

/** The method label of a body for logs and metrics: its MCP method (or `other`), `batch`, or its kind. */
export function labelOf(body: ClassifiedBody | undefined, verb: string): string {
  if (!body) return verb;
  if (body.batch) return 'batch';
  const first = body.messages[0];
  if (first?.method !== undefined) return methodLabel(first.method);
  return first?.kind ?? verb;
}

/** Count one request's governing revision (a revision the gateway does not know counts as `other`). */
export function countRevision(metrics: Metrics, upstream: string, revision: string, source: string): void {
  metrics.revisions.inc(upstream, revisionLabel(revision), source);
}

const q = JSON.stringify;

/** Longest string a client chose that a log line holds whole (a method, a tool name, its client's name). */
export const LOGGED_CHARS = 256;

/** `text` as the log line holds it: cut at LOGGED_CHARS (a 3 MB tool name would be a 3 MB line per request). */
const cut = (text: string): string => (text.length > LOGGED_CHARS ? `${text.slice(0, LOGGED_CHARS)}…` : text);

/**
 * The exchange's fields as its log line holds them, in this order, those that are undefined left out (as pino
 * would: the line is written through src/log.ts infoFields). Strings a client chose (session, tool, revision,
 * client, path) are escaped like every other.
 */
export function exchangeFields(r: ExchangeRecord, outcome: string, durationMs: number): string {
  let f = `,"reqId":${q(r.reqId)},"upstream":${q(r.upstream)}`;
  if (r.session !== undefined) f += `,"session":${q(r.session)}`;
  f += `,"method":${q(cut(r.method))}`;
  if (r.tool !== undefined) f += `,"tool":${q(cut(r.tool))}`;
  if (r.profile !== undefined) f += `,"profile":${q(r.profile)}`;
  if (r.path !== undefined) f += `,"path":${q(r.path)}`;
  if (r.revision !== undefined) f += `,"revision":${q(cut(r.revision))}`;
  if (r.revisionSource !== undefined) f += `,"revisionSource":${q(r.revisionSource)}`;
  if (r.requested !== undefined) f += `,"requested":${q(cut(r.requested))}`;
  if (r.client !== undefined) f += `,"client":${q(cut(r.client))}`;
  f += `,"status":${r.status},"outcome":${q(outcome)}`;
  if (r.rpcError !== undefined) f += `,"rpcError":${q(r.rpcError)}`;
  if (r.errorCode !== undefined) f += `,"code":${q(r.errorCode)}`;
  if (r.rewritten !== undefined) f += `,"rewritten":${r.rewritten}`;
  if (r.aborted === true) f += ',"aborted":true';
  return `${f},"durationMs":${durationMs}`;
}

/** Count and log the exchange: the one place both happen. */
export function finishExchange(logger: Logger, metrics: Metrics, r: ExchangeRecord): void {
  const aborted = r.aborted === true;
  const outcome = aborted ? 'aborted' : r.status === 0 || r.status >= 400 || r.rpcError !== undefined ? 'error' : 'ok';
  metrics.requests.inc(r.upstream, r.method, r.status);
  infoFields(logger, exchangeFields(r, outcome, Math.round(performance.now() - r.started)), 'request');
}

/**
 * Count and log the exchange on `res` once it closes, as `record()` then describes it (status and whether it
 * was cut short come from the response itself unless the record says).
 */
export function finishWhenClosed(res: ServerResponse, logger: Logger, metrics: Metrics, record: () => Omit<ExchangeRecord, 'status'> & { readonly status?: number }): void {
  res.once('close', () => {
    const r = record();
    finishExchange(logger, metrics, { ...r, status: r.status ?? (res.headersSent ? res.statusCode : 0), aborted: r.aborted ?? !res.writableFinished });
  });
}
