/**
 * The one body reader and parser of every route: a POST's bytes are read from the raw request within
 * `limits.maxRequestBytes` (how long that may take is bounded by the server's `limits.requestTimeoutMs`:
 * ./create.ts), then checked (JSON media type) and parsed and classified once. The original bytes are kept,
 * since what goes upstream is what the client sent.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { RetrofitError } from '../../errors.js';
import { classifyBody, type ClassifiedBody } from '../../jsonrpc/classify.js';
import { withIdLiterals } from '../../jsonrpc/id-literal.js';
import { MAX_DEPTH, nestedTooDeeply, strictProblem } from '../../jsonrpc/strict.js';
import { mediaType } from '../../upstream/headers.js';

/** What became of reading a body: its bytes, a refusal to answer with, or nothing (the client went away). */
export type BodyRead = Buffer | RetrofitError | undefined;

const EMPTY = Buffer.alloc(0);

/**
 * Read a request's body up to `limit` bytes, then call `done` once: the bytes; RETROFIT_ERR_BODY_TOO_LARGE as
 * soon as the declared or received length passes the limit (nothing more is read: the answer closes the
 * connection); undefined when the client went away first (or the server gave up on it: requestTimeoutMs).
 * Callback style: no promise per request on the hot path.
 */
export function readRequestBody(req: IncomingMessage, limit: number, done: (read: BodyRead) => void): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && !(Number(declared) <= limit)) return done(new RetrofitError('RETROFIT_ERR_BODY_TOO_LARGE', [limit]));
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  // Listeners stay after the first outcome (`settled` ignores the rest): removing four of them on every request
  // costs more than leaving them to the request they belong to.
  const finish = (read: BodyRead): void => {
    if (settled) return;
    settled = true;
    if (read instanceof RetrofitError) req.off('data', onData);
    done(read);
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) finish(new RetrofitError('RETROFIT_ERR_BODY_TOO_LARGE', [limit]));
    else chunks.push(chunk);
  };
  const onEnd = (): void => finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
  // 'close' before 'end': the client (or the server's request timeout) ended the connection mid-body.
  const onGone = (): void => finish(undefined);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onGone);
  req.on('close', onGone);
}

/**
 * Most messages in one batch: as many requests as a session keeps in flight (src/session/pending.ts). A 4 MB
 * batch of 80,000 pings, each one evicting the oldest, held the event loop for ten seconds; no client needs more.
 */
export const MAX_BATCH = 1000;

/** A parsed body with the bytes it came in. */
export interface ParsedBody {
  readonly bytes: Buffer;
  readonly body: ClassifiedBody;
  /** The body as text (one message's JSON text, when it is not a batch). */
  readonly text: string;
}

/**
 * Parse a POST body (a leading UTF-8 byte order mark ignored): 415 unless JSON, 400 -32700 when it does not
 * parse or nests deeper than MAX_DEPTH (on every route: the gateway recurses over none of it, but the upstream
 * it would reach may, and die of it), 400 -32600 for a batch of more than MAX_BATCH messages.
 */
export function parseBody(headers: IncomingHttpHeaders, bytes: Buffer | undefined): ParsedBody | RetrofitError {
  if (mediaType(headers['content-type']) !== 'application/json') return new RetrofitError('RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE');
  const raw = bytes ?? EMPTY;
  if (nestedTooDeeply(raw)) return new RetrofitError('RETROFIT_ERR_PARSE', [`invalid JSON-RPC message (nested deeper than ${MAX_DEPTH} levels)`]);
  // A UTF-8 byte order mark is ignored, as the SDK servers' decoders ignore it (RFC 8259 allows either); a
  // proxied upstream still gets the bytes as they came.
  const decoded = raw.toString('utf8');
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.length > MAX_BATCH) return new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [`a batch of ${parsed.length} messages (at most ${MAX_BATCH})`]);
    return { bytes: raw, text, body: withIdLiterals(classifyBody(parsed), text, parsed) };
  } catch (err) {
    return new RetrofitError('RETROFIT_ERR_PARSE', [err instanceof Error ? err.message : String(err)], { cause: err });
  }
}

/**
 * A parsed body as strictly as the SDK servers check what they are sent (routes that hand messages to a
 * session the gateway holds): 400 -32700 for a message that is not a valid JSON-RPC message, 400 -32600 for
 * an empty batch (JSON-RPC 2.0's answer to one).
 */
export function strictBodyProblem(read: ParsedBody): RetrofitError | undefined {
  // JSON-RPC 2.0 answers an empty batch with one -32600 (Invalid Request): it parsed, it just holds nothing.
  if (read.body.batch && Array.isArray(read.body.messages[0]?.message)) return new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', ['an empty batch']);
  const problem = read.body.messages.map(strictProblem).find((p) => p !== undefined);
  return problem === undefined ? undefined : new RetrofitError('RETROFIT_ERR_PARSE', [`invalid JSON-RPC message (${problem})`]);
}
