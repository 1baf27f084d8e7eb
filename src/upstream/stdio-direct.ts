/**
 * The direct path for the commonest stdio exchange: one JSON-RPC request POSTed on an open session with
 * valid headers. The SDK's Streamable HTTP transport converts every exchange to a web Request, validates the
 * body with zod and answers through a web ReadableStream; under load that was most of the gateway's CPU per
 * stdio request. Here the session answers on the Node response itself: JSON when the answer is the first
 * message for the request (PROTOCOL.md: "answer is JSON or an SSE stream"), an SSE stream with the SDK's
 * framing when notifications or server→client requests come first, or when the call outlasts a keep-alive
 * interval (the stream then carries the SDK's keep-alive comments).
 *
 * Anything else (initialize, batches, notifications, responses, GET, DELETE, headers the SDK would refuse,
 * shapes its schema would refuse) still goes through the SDK transport, so its errors stay the SDK's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject } from '../json.js';

/** A request eligible for the direct path. */
export interface DirectRequest {
  readonly id: string | number;
  readonly message: JsonObject;
  /** The MCP-Protocol-Version header, when sent (already checked to be one the SDK supports). */
  readonly protocolHeader: string | undefined;
}

// JSONRPCRequestSchema is strict at the top level: any other key is the SDK's 400.
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
// The SDK validates this _meta entry's shape; leave such requests to it.
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A JSON-RPC id (or progress token) as the SDK's schema accepts it: a string or an integer. */
function isIdLike(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/**
 * `body` as a direct request, or undefined when the SDK transport must handle the exchange. The session id
 * was matched by the caller; everything the SDK checks for a POST after initialization is checked here.
 */
export function directRequest(req: IncomingMessage, body: unknown): DirectRequest | undefined {
  if (req.method !== 'POST') return undefined;
  const accept = req.headers.accept;
  if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const type = req.headers['content-type'];
  if (type === undefined || type.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') return undefined;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  if (!isJsonObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || body.method === 'initialize') return undefined;
  const id = body.id;
  if (!isIdLike(id)) return undefined;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
  const params = body.params;
  if (params !== undefined) {
    if (!isJsonObject(params)) return undefined;
    const meta = params._meta;
    if (meta !== undefined && (!isJsonObject(meta) || RELATED_TASK in meta || (meta.progressToken !== undefined && !isIdLike(meta.progressToken)))) return undefined;
  }
  return { id, message: body, protocolHeader: version };
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };

/** The HTTP response of one direct request: written once its answer (or something before it) arrives. */
export class DirectReply {
  private readonly res: ServerResponse;
  private readonly sessionId: string;
  private streaming = false;
  /** Set by the first keep-alive tick, so a reply younger than one interval is left alone. */
  private aged = false;

  constructor(res: ServerResponse, sessionId: string) {
    this.res = res;
    this.sessionId = sessionId;
  }

  /** False once the client went away or the reply ended. */
  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  /** A message for the request that is not its answer (progress, a server→client request): stream from now on. */
  event(json: string): void {
    if (!this.open) return;
    this.startStream();
    this.res.write(`event: message\ndata: ${json}\n\n`);
  }

  /** The request's answer: the whole reply as JSON (headers and body in one write), or the stream's last event. */
  answer(json: string): void {
    if (!this.open) return;
    if (this.streaming) {
      this.res.end(`event: message\ndata: ${json}\n\n`);
      return;
    }
    this.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), 'mcp-session-id': this.sessionId }).end(json);
  }

  /** No answer will come on this reply (cancelled, session closed): end it as the SDK ends such a stream. */
  end(): void {
    if (!this.open) return;
    this.startStream();
    this.res.end();
  }

  /**
   * A keep-alive tick (every 15 s, like the SDK transport's): from the second tick on, a reply still
   * waiting becomes an SSE stream and gets a comment, so a long call keeps intermediaries and clients
   * (headers and body timeouts) from giving up on a silent connection.
   */
  keepAlive(): void {
    if (!this.open) return;
    if (!this.aged) {
      this.aged = true;
      return;
    }
    this.startStream();
    this.res.write(': keepalive\n\n');
  }

  /** The request could not be handed to the child (e.g. unserialisable): the SDK's 400 for that case. */
  fail(err: unknown): void {
    if (!this.open) return;
    const text = JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: String(err) }, id: null });
    this.res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  }

  private startStream(): void {
    if (this.streaming) return;
    this.streaming = true;
    this.res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
  }
}
