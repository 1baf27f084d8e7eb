/**
 * The one body parser of every MCP route: a POST body is checked (JSON media type) and parsed once, and
 * classified once; the original bytes are kept, since what goes upstream is what the client sent. Fastify
 * hands every route its body as raw bytes (src/app.ts), as the direct lane does (src/http/server/lane.ts); Fastify's
 * own errors (too large, bad media type) are mapped in one place, `fastifyError` below.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { RetrofitError } from '../../errors.js';
import { classifyBody, type ClassifiedBody } from '../../jsonrpc/classify.js';
import { mediaType } from '../../upstream/headers.js';

/** A parsed body with the bytes it came in. */
export interface ReadBody {
  readonly bytes: Buffer;
  readonly body: ClassifiedBody;
  /** The body as text (one message's JSON text, when it is not a batch). */
  readonly text: string;
}

/** A received request as the parser needs it: its headers and its raw body (bytes, or nothing). */
export interface RawBodied {
  readonly headers: IncomingHttpHeaders;
  readonly body?: unknown;
}

/** Parse a POST body: 415 unless JSON, 400 -32700 when it does not parse. */
export function readBody(request: RawBodied): ReadBody | RetrofitError {
  if (mediaType(request.headers['content-type']) !== 'application/json') return new RetrofitError('RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE');
  const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const text = bytes.toString('utf8');
  try {
    return { bytes, text, body: classifyBody(JSON.parse(text)) };
  } catch (err) {
    return new RetrofitError('RETROFIT_ERR_PARSE', [err instanceof Error ? err.message : String(err)], { cause: err });
  }
}

/** The JSON label of a body for logs and metrics: its method, `batch`, or its kind. */
export function labelOf(body: ClassifiedBody | undefined, verb: string): string {
  if (!body) return verb;
  if (body.batch) return 'batch';
  const first = body.messages[0];
  return first?.method ?? first?.kind ?? verb;
}

/** A Fastify error (body too large, bad media type, malformed request) as the gateway's own error. */
export function fastifyError(error: { statusCode?: number; code?: string; message: string }, maxRequestBytes: number): RetrofitError | undefined {
  if (error.statusCode === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new RetrofitError('RETROFIT_ERR_BODY_TOO_LARGE', [maxRequestBytes], { cause: error });
  if (error.statusCode === 415 || error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new RetrofitError('RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE', [], { cause: error });
  if (error.statusCode !== undefined && error.statusCode < 500) return new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [error.message], { cause: error });
  return undefined;
}
