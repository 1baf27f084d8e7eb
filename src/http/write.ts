/**
 * Answering with the gateway's own errors: a JSON-RPC error body from the registry (src/errors.ts) with its
 * HTTP status, on a Fastify reply or on a raw response once the reply was hijacked.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { RetrofitError } from '../errors.js';
import type { JsonRpcId } from '../jsonrpc/classify.js';

/** Send `error` as the whole answer. */
export function sendError(reply: FastifyReply, error: RetrofitError, id: JsonRpcId = null, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(error.status).headers(headers).type('application/json').send(error.toJsonRpc(id));
}

/** Write `value` as the whole JSON answer on a raw response. */
function writeJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string>): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Write `error` as the whole answer on a raw response. */
export function writeError(res: ServerResponse, error: RetrofitError, id: JsonRpcId = null, headers: Record<string, string> = {}): void {
  writeJson(res, error.status, error.toJsonRpc(id), headers);
}

/** The body of an unexpected failure (a bug): nothing about it is told the client. */
export const INTERNAL_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'internal error' } } as const;

/** Answer an unexpected failure with 500 and INTERNAL_ERROR on a raw response. */
export function writeInternalError(res: ServerResponse): void {
  writeJson(res, 500, INTERNAL_ERROR, {});
}
