/**
 * One log line and one count per HTTP exchange, for every kind of upstream: what was asked (method, tool),
 * what the client got (HTTP status, and for an error answer its JSON-RPC code and the gateway's error code),
 * how it ended (`ok`, `error`, `aborted`) and how long it took.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';

/** What the handler knows of the exchange by the time it ends. */
export interface ExchangeFacts {
  readonly method: string;
  readonly tool?: string | undefined;
  /** The JSON-RPC error code of the answer, when it was an error. */
  readonly rpcError?: number | undefined;
  /** Its `data.code`, when it is one of the gateway's own (RETROFIT_ERR_*). */
  readonly errorCode?: string | undefined;
  /** The governing revision and where it came from, when known. */
  readonly revision?: string | undefined;
  readonly revisionSource?: string | undefined;
  /**
   * initialize: the revision the client asked for (params.protocolVersion). The request itself is governed
   * by the rule (no header yet: 2025-03-26, source default); this says what the session is about to speak.
   */
  readonly requested?: string | undefined;
  /** The client went away before the answer was complete. */
  readonly aborted?: boolean;
}

/** Log and count the exchange on `res` when it closes; `facts` is read then. */
export function logWhenDone(res: ServerResponse, upstream: string, log: Logger, metrics: Metrics, facts: () => ExchangeFacts): void {
  const started = performance.now();
  res.once('close', () => {
    const f = facts();
    const status = res.statusCode;
    const aborted = f.aborted ?? !res.writableFinished;
    const outcome = aborted ? 'aborted' : status >= 400 || f.rpcError !== undefined ? 'error' : 'ok';
    metrics.requests.inc({ upstream, method: f.method, status });
    log.info(
      {
        method: f.method,
        ...(f.tool !== undefined && { tool: f.tool }),
        ...(f.revision !== undefined && { revision: f.revision, revisionSource: f.revisionSource }),
        ...(f.requested !== undefined && { requested: f.requested }),
        status,
        outcome,
        ...(f.rpcError !== undefined && { rpcError: f.rpcError }),
        ...(f.errorCode !== undefined && { code: f.errorCode }),
        durationMs: Math.round(performance.now() - started),
      },
      'request',
    );
  });
}
