/**
 * One gateway-owned client session in front of one stdio child. The client side is the MCP SDK's
 * Streamable HTTP server transport (session id, SSE/JSON answers, GET stream, DELETE); this class bridges
 * it to the child's NDJSON stdio, matching responses to requests by JSON-RPC id so the shared rewriter
 * can retrofit tools/list and tools/call results.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { type StdioUpstreamConfig } from '../config/types.js';
import { RetrofitError, type ErrorCode } from '../errors.js';
import type { GatewayDeps } from '../http/deps.js';
import { classifyMessage, type JsonRpcId } from '../jsonrpc/classify.js';
import type { Logger } from '../log.js';
import type { Rewritten } from '../pipeline/rewrite.js';
import { detectRevision } from '../protocol/era.js';
import { sniffResponseId, type OverlongLine } from './ndjson.js';
import { DirectReply, directRequest, type DirectRequest } from './stdio-direct.js';
import { StdioChild, type ChildExit } from './stdio-child.js';
import { InOrder } from './in-order.js';
import { SessionRequests } from './stdio-requests.js';

/** Settings shared by every session of one upstream. */
export interface StdioSessionSettings {
  readonly upstream: StdioUpstreamConfig;
  readonly deps: GatewayDeps;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly maxLineBytes: number;
  readonly killTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** Interval of keep-alive comments on waiting direct replies (stdio-direct.ts). */
  readonly keepAliveMs: number;
  /** The session got its id (the initialize request was accepted): register it. */
  readonly onOpen: (session: StdioSession) => void;
  /** The session ended for good: forget it. */
  readonly onClose: (session: StdioSession) => void;
  /** The child could not be spawned (for /readyz). */
  readonly onSpawnFailure: (exit: ChildExit) => void;
  /** The child started (clears a previous spawn failure). */
  readonly onSpawn: () => void;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export class StdioSession {
  readonly transport: StreamableHTTPServerTransport;
  private readonly settings: StdioSessionSettings;
  private log: Logger;
  private child: StdioChild | undefined;
  private readonly pending = new SessionRequests();
  /** Requests answered on their own HTTP response, bypassing the SDK transport (see stdio-direct.ts). */
  private readonly direct = new Map<JsonRpcId, DirectReply>();
  private protocolVersion: string | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Ticks the direct replies' keep-alive while the session is open (one timer per session, not per request). */
  private keepAliveTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  /** The child's messages, in its order even when a large result goes to a worker thread. */
  private readonly childOrder = new InOrder((err) => this.log.error({ err }, 'message from the child could not be handled'));

  constructor(settings: StdioSessionSettings) {
    this.settings = settings;
    this.log = settings.deps.logger.child({ upstream: settings.upstream.name });
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // The child starts only once the transport accepted an initialize request.
      onsessioninitialized: (id) => this.open(id),
    });
    this.transport.onmessage = (message, extra) => this.fromClient(message, headerValue(extra?.requestInfo?.headers['mcp-protocol-version']));
    // DELETE (and any other transport close) ends the session and its child.
    this.transport.onclose = () => void this.close('session closed');
    this.transport.onerror = (err) => this.log.debug({ err }, 'client transport rejected a request');
  }

  get id(): string | undefined {
    return this.transport.sessionId;
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.alive ? this.child.pid : undefined;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Serve one HTTP exchange of this session (the reply has been hijacked). */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    this.touch();
    // The transport maps each request id to one response stream: a second request with an id still in
    // flight would steal the first one's answer and leave it hanging. Refuse it before the transport sees it.
    const duplicate = this.duplicateId(body);
    if (duplicate !== undefined) {
      const err = new RetrofitError('RETROFIT_ERR_DUPLICATE_ID', [JSON.stringify(duplicate)]);
      const text = JSON.stringify(err.toJsonRpc(duplicate));
      res.writeHead(err.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      return;
    }
    const id = this.id;
    const fast = id !== undefined && !this.closing ? directRequest(req, body) : undefined;
    if (fast) return this.handleDirect(fast, new DirectReply(res, id!));
    await this.transport.handleRequest(req, res, body);
    // The transport refused the initialize (bad Accept, batch…): no session, nothing to time out.
    if (this.id === undefined && this.idleTimer) clearTimeout(this.idleTimer);
  }

  /** One request on an open session, answered on its own response (stdio-direct.ts). */
  private handleDirect(request: DirectRequest, reply: DirectReply): void {
    this.direct.set(request.id, reply);
    try {
      this.fromClient(request.message as unknown as JSONRPCMessage, request.protocolHeader);
    } catch (err) {
      this.direct.delete(request.id);
      reply.fail(err);
    }
  }

  /** The first request id in `body` that is already pending in this session, if any. */
  private duplicateId(body: unknown): string | number | undefined {
    for (const message of Array.isArray(body) ? body : [body]) {
      const c = classifyMessage(message);
      if (c.kind === 'request' && c.id !== undefined && c.id !== null && this.pending.has(c.id)) return c.id;
    }
    return undefined;
  }

  /** End the session: fail what is pending, close the client streams, stop the child. Idempotent. */
  close(reason: string): Promise<void> {
    if (this.closing) return this.closing;
    // Assigned before shutdown starts: closing the transport calls back into close() synchronously.
    let done!: () => void;
    this.closing = new Promise((resolve) => (done = resolve));
    this.shutdown(reason).then(done, (err: unknown) => {
      this.log.error({ err }, 'session shutdown failed');
      done();
    });
    return this.closing;
  }

  private open(id: string): void {
    this.log = this.log.child({ session: id });
    this.keepAliveTimer = setInterval(() => {
      for (const reply of this.direct.values()) reply.keepAlive();
    }, this.settings.keepAliveMs);
    this.keepAliveTimer.unref();
    this.settings.onOpen(this);
  }

  /**
   * Spawn the child when the initialize request is handed over (not earlier: a spawn failure must reach
   * the client as an error answer to its initialize, which needs that request's stream to exist).
   */
  private spawn(): void {
    const { upstream, deps } = this.settings;
    try {
      this.child = new StdioChild({
        command: upstream.command,
        args: upstream.args,
        env: this.settings.env,
        cwd: this.settings.cwd,
        maxLineBytes: this.settings.maxLineBytes,
        killTimeoutMs: this.settings.killTimeoutMs,
        log: this.log,
        onMessage: (message, line) => this.fromChild(message, line),
        onOverlong: (line) => this.overlong(line),
        onExit: (exit) => this.exited(exit),
      });
    } catch (err) {
      // spawn() throws synchronously only for invalid arguments; treat it like any spawn failure.
      this.exited({ kind: 'spawn', code: null, signal: null, requested: false, reason: `spawn ${String(err)}`, error: err as Error });
      return;
    }
    if (this.child.pid !== undefined) {
      deps.metrics.children.inc({ upstream: upstream.name });
      this.settings.onSpawn();
      this.log.info({ pid: this.child.pid, command: upstream.command }, 'upstream child started');
    }
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.closing) return;
    this.idleTimer = setTimeout(() => {
      // A long tool call is not idleness: wait for it.
      if (this.pending.size > 0) return this.touch();
      void this.close('idle timeout');
    }, this.settings.idleTimeoutMs);
    this.idleTimer.unref();
  }

  private fromClient(message: JSONRPCMessage, protocolHeader: string | undefined): void {
    const c = classifyMessage(message);
    if (!this.child && !this.closing) this.spawn();
    if (c.kind === 'request' && c.id !== undefined && c.method !== undefined) {
      const { upstream, deps } = this.settings;
      const { revision, source } = detectRevision({ meta: c.metaRevision, header: protocolHeader, session: this.protocolVersion });
      deps.metrics.revisions.inc({ upstream: upstream.name, revision, source });
      const params = 'params' in message && isJsonObject(message.params) ? message.params : undefined;
      const tool = c.method === 'tools/call' ? c.name : c.method === 'tasks/result' && typeof params?.taskId === 'string' ? this.pending.toolOfTask(params.taskId) : undefined;
      const policy = deps.rewriter.policyOf(upstream.name);
      const token = isJsonObject(params?._meta) ? params._meta.progressToken : undefined;
      this.pending.add(c.id, { upstream: upstream.name, method: c.method, revision, started: performance.now(), ...(tool !== undefined && { tool }), ...(policy && { policy }) }, token);
    } else if (c.kind === 'notification' && c.method === 'notifications/cancelled') {
      this.cancelled(message);
    }
    let sent: boolean;
    try {
      sent = this.child?.send(message) ?? false;
    } catch (err) {
      // Unserialisable (e.g. nested past the stack): the transport answers the client 400; nothing is pending.
      if (c.kind === 'request' && c.id !== undefined) this.pending.release(c.id);
      throw err;
    }
    if (!sent) {
      if (c.kind === 'request' && c.id !== undefined) this.fail(c.id, 'RETROFIT_ERR_UPSTREAM_EXITED', [this.settings.upstream.name, 'not running']);
    }
  }

  /** The client gave up on a request: the child will not answer it, so release its stream now. */
  private cancelled(message: JSONRPCMessage): void {
    const params = 'params' in message && isJsonObject(message.params) ? message.params : undefined;
    const id = params?.requestId;
    if ((typeof id === 'string' || typeof id === 'number') && this.pending.has(id)) {
      this.pending.release(id);
      this.transport.closeSSEStream(id);
      this.direct.get(id)?.end();
      this.direct.delete(id);
      this.log.debug({ id }, 'request cancelled by the client; its stream released');
    }
  }

  private fromChild(message: unknown, line: string): void {
    // Keep the child's order: while a result is on a worker, what follows it waits its turn.
    this.childOrder.run(() => this.fromChildNow(message, line));
  }

  /** `line` is the child's text of `message`, sent on as is when nothing changes it. */
  private fromChildNow(message: unknown, line: string): Promise<void> | undefined {
    const c = classifyMessage(message);
    if (c.kind === 'invalid' || !isJsonObject(message)) {
      this.log.warn({ message: JSON.stringify(message).slice(0, 200) }, 'upstream sent something that is not a JSON-RPC message; skipped');
      return;
    }
    if (c.kind === 'response' && c.id !== undefined) return this.response(c.id, message, line);
    // Notifications and server→client requests: on the stream of the request they belong to, when known.
    this.deliver(message, this.pending.relatedTo(message));
    return undefined;
  }

  /** Deliver a response (rewritten); a promise while its result is retrofitted on a worker thread. */
  private response(id: JsonRpcId, message: JsonObject, line: string): Promise<void> | undefined {
    const pending = this.pending.get(id);
    if (!pending) {
      this.log.debug({ id }, 'upstream answered a request nobody is waiting for; dropped');
      return undefined;
    }
    const { deps, upstream } = this.settings;
    const large = deps.rewriter.needsRewrite(pending.method) ? deps.rewriter.rewriteLarge?.(pending, message, this.log) : undefined;
    // On a worker, the request stays pending until delivered: a graceful drain waits for it.
    if (!large) this.pending.release(id);
    deps.metrics.latency.observe({ upstream: upstream.name, method: pending.method }, (performance.now() - pending.started) / 1000);
    const result = message.result;
    if (pending.method === 'initialize' && isJsonObject(result) && typeof result.protocolVersion === 'string') {
      this.protocolVersion = result.protocolVersion;
    }
    if (pending.method === 'tools/call' && pending.tool !== undefined && isJsonObject(result) && isJsonObject(result.task) && typeof result.task.taskId === 'string') {
      this.pending.rememberTask(result.task.taskId, pending.tool);
    }
    if (large) return large.then((r) => this.deliverLarge(id, r));
    const out = deps.rewriter.needsRewrite(pending.method) ? deps.rewriter.rewrite(pending, message, this.log) : message;
    this.deliver(out, id, out === message ? line : undefined);
    return undefined;
  }

  /**
   * A worker's answer. A direct reply (stdio-direct.ts) takes the worker's JSON as it is; the SDK transport
   * serialises what it sends, so for it the JSON is parsed back here.
   */
  private deliverLarge(id: JsonRpcId, r: Rewritten): void {
    // Failed meanwhile (the session closed): its error was sent already.
    if (!this.pending.has(id)) return;
    this.pending.release(id);
    if (r.serialized !== undefined && this.direct.has(id)) return this.deliver(r.message, id, r.serialized.toString('utf8'));
    let out = r.message;
    try {
      if (r.serialized !== undefined) out = JSON.parse(r.serialized.toString('utf8')) as JsonObject;
    } catch (err) {
      this.log.error({ err, id }, 'retrofit worker output does not parse; result passed through');
    }
    this.deliver(out, id);
  }

  /** `raw`: the message's JSON text as the child sent it, if unchanged (saves a stringify on the direct path). */
  private deliver(message: JsonObject, relatedRequestId: JsonRpcId | undefined, raw?: string): void {
    // Routed like the SDK transport does: a response by its own id, anything else by the related request.
    const answer = !('method' in message) && ('result' in message || 'error' in message);
    const target = answer ? (message.id as JsonRpcId | undefined) : relatedRequestId;
    const reply = target === undefined ? undefined : this.direct.get(target);
    if (reply) {
      // An SSE data line must not hold a CR; the child's line may (as JSON whitespace).
      const json = raw !== undefined && !raw.includes('\r') ? raw : JSON.stringify(message);
      if (!answer) return reply.event(json);
      this.direct.delete(target!);
      return reply.answer(json);
    }
    const options = relatedRequestId === undefined || relatedRequestId === null ? undefined : { relatedRequestId };
    // The SDK type is a zod inference; the message is a JSON-RPC object the child (or we) produced.
    this.transport.send(message as unknown as JSONRPCMessage, options).catch((err: unknown) => {
      this.log.debug({ err, id: message.id, method: message.method }, 'message could not be delivered to the client');
    });
  }

  private fail(id: JsonRpcId, code: ErrorCode, args: readonly unknown[]): void {
    this.pending.release(id);
    this.deliver(new RetrofitError(code, args).toJsonRpc(id), id);
  }

  /**
   * Graceful shutdown, first half: end the GET stream (it never ends by itself) and resolve once no request
   * is pending. The caller bounds the wait and then calls close().
   */
  settled(): Promise<void> {
    this.transport.closeStandaloneSSEStream();
    return this.pending.settled();
  }

  private overlong(line: OverlongLine): void {
    const id = sniffResponseId(line);
    if (id !== undefined && this.pending.has(id)) {
      this.settings.deps.metrics.upstreamErrors.inc({ upstream: this.settings.upstream.name, kind: 'too_large' });
      this.fail(id, 'RETROFIT_ERR_RESULT_TOO_LARGE', [this.settings.upstream.name, this.settings.maxLineBytes]);
    }
  }

  private exited(exit: ChildExit): void {
    const { deps, upstream } = this.settings;
    if (this.child?.pid !== undefined) deps.metrics.children.dec({ upstream: upstream.name });
    if (exit.kind === 'spawn') this.settings.onSpawnFailure(exit);
    if (exit.requested) {
      this.log.info({ pid: this.child?.pid, reason: exit.reason }, 'upstream child stopped');
    } else {
      deps.metrics.upstreamErrors.inc({ upstream: upstream.name, kind: exit.kind });
      this.log.warn({ pid: this.child?.pid, reason: exit.reason, err: exit.error, command: upstream.command }, exit.kind === 'spawn' ? 'upstream child failed to spawn' : 'upstream child exited');
    }
    void this.close(exit.reason);
  }

  private async shutdown(reason: string): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.keepAliveTimer) clearInterval(this.keepAliveTimer);
    this.settings.onClose(this);
    // Pending requests get an error at once, before their streams close, so clients never hang.
    for (const id of this.pending.ids()) this.fail(id, 'RETROFIT_ERR_UPSTREAM_EXITED', [this.settings.upstream.name, reason]);
    for (const reply of this.direct.values()) reply.end();
    this.direct.clear();
    await this.transport.close();
    if (this.child) await this.child.stop();
    this.log.debug({ reason }, 'session closed');
  }
}
