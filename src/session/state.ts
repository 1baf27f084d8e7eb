/**
 * What the gateway knows of one session, whatever carries it (a proxied Streamable HTTP session, a stdio
 * child, a legacy SSE connection): both sides' revisions once initialize was answered, the requests whose
 * answers it waits for, and which tool created each task (so `tasks/result` is retrofitted like its call).
 *
 * Requests are registered here as they go upstream (`expect`), answers settled here as they come back
 * (`settle`): the revision rules and the negotiation live in src/protocol, the rewriting in src/pipeline;
 * this class only decides, per message, whether either is needed.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { REWRITTEN_METHODS, type ClassifiedMessage } from '../jsonrpc/classify.js';
import type { PendingRequest } from '../pipeline/request.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';
import { detectRevision, isRevision, revisionsDisagree, type RevisionSource } from '../protocol/era.js';
import { negotiate, requestedRevision, type Negotiated } from '../protocol/negotiate.js';
import { clientInfo } from '../protocol/modern.js';
import type { ClientIdentity, ClientProfile } from '../retrofit/profile.js';
import type { RequestTrace } from '../telemetry/spans.js';
import { Lru } from './lru.js';
import { PendingTable, type Expectation, type Pending, type PendingOptions } from './pending.js';


/** What a request needs to be registered: the config snapshot's view of its upstream, and the headers. */
export interface RequestContext<S = unknown> {
  /** The `MCP-Protocol-Version` header of the HTTP request that carried it. */
  readonly header: string | undefined;
  /** The upstream's policy in the config generation serving this request. */
  readonly policy: UpstreamPolicy | undefined;
  /** Register every request, not only those to rewrite (gateway-owned sessions route and deadline them all). */
  readonly routeAll?: boolean;
  /** Where the answer goes (gateway-owned sessions). */
  readonly stream?: S;
  /** Date.now() past which the request fails (gateway-owned sessions). */
  readonly deadline?: number;
  /** The request's spans, when tracing is on: the pipeline adds the retrofit to them. */
  readonly trace?: RequestTrace;
  /**
   * The client of this request, when the request itself says (a 2026-07-28 request's `_meta` client info; null
   * when it gave none): its profile is matched on that, never on whoever initialized the (pooled) session.
   */
  readonly client?: JsonObject | null;
}

/** The governing revision of a registered request, for the revisions metric and the request log. */
export interface Registered<S = unknown> {
  readonly revision: string;
  readonly source: RevisionSource;
  /** The entry, when the request is awaited. */
  readonly pending?: Pending<S>;
  /** The client profile its answer is shaped for (`clients:`), by name, when one matched. */
  readonly profile?: string;
}

/** What settling an answer found out. */
export interface Settled {
  /** The InitializeResult's negotiation, when the answer was one. */
  readonly negotiated?: Negotiated;
  /** The answer to send instead (a bridged InitializeResult), when it changes. */
  readonly message?: JsonObject;
}

export interface SessionStateOptions {
  readonly upstream: string;
  /** The upstream's `bridge` setting (see src/protocol/negotiate.ts). */
  readonly bridge: boolean;
  readonly pending?: PendingOptions;
  /** Most task → tool entries kept (default 1000). */
  readonly maxTasks?: number;
  /** Called once initialize was answered (the caller logs and counts bridged sessions). */
  readonly onNegotiated?: (negotiated: Negotiated) => void;
}

/** A clientInfo's name and version, when they are strings. */
function identityOf(info: unknown): { name?: string; version?: string } {
  if (!isJsonObject(info)) return {};
  return { ...(typeof info.name === 'string' && { name: info.name }), ...(typeof info.version === 'string' && { version: info.version }) };
}

export class SessionState<S = unknown> {
  readonly upstream: string;
  readonly pending: PendingTable<S>;
  #tasks: Lru<string> | undefined;
  readonly #maxTasks: number;
  readonly #bridge: boolean;
  readonly #onNegotiated: ((negotiated: Negotiated) => void) | undefined;
  #negotiated: Negotiated | undefined;
  /** What the client said of itself in initialize (name, version), for its profile. */
  #client: { readonly name?: string; readonly version?: string } | undefined;
  /** The profile last matched, and for which policy (config generation) and revision. */
  #profile: { readonly policy: UpstreamPolicy; readonly revision: string; readonly profile: ClientProfile | undefined } | undefined;

  constructor(options: SessionStateOptions) {
    this.upstream = options.upstream;
    this.#bridge = options.bridge;
    this.pending = new PendingTable<S>(options.pending);
    this.#maxTasks = options.maxTasks ?? 1000;
    this.#onNegotiated = options.onNegotiated;
  }

  /** Both sides' revisions, once initialize was answered. */
  get negotiated(): Negotiated | undefined {
    return this.#negotiated;
  }

  /** The revision the client was answered (the session's governing revision). */
  get clientRevision(): string | undefined {
    return this.#negotiated?.client;
  }

  /** The revision the upstream answered. */
  get upstreamRevision(): string | undefined {
    return this.#negotiated?.upstream;
  }

  /** The name of the client profile last matched for this session, when one did. */
  get profile(): string | undefined {
    return this.#profile?.profile?.name;
  }

  /** The client's name and version from its initialize, when it gave them. */
  get client(): { readonly name?: string; readonly version?: string } | undefined {
    return this.#client;
  }

  /** Adopt what another exchange learnt (the initialize answer of a proxied session, and who asked). */
  adopt(negotiated: Negotiated, client?: { readonly name?: string; readonly version?: string }): void {
    this.#negotiated = negotiated;
    if (client) this.#client = client;
  }

  /**
   * Register one client request going upstream. Returns its governing revision, and the entry when its
   * answer is awaited: initialize (negotiation), methods to rewrite when they may need it, and with
   * `routeAll` every request.
   */
  expect(c: ClassifiedMessage, ctx: RequestContext<S>): Registered<S> {
    const { revision, source } = detectRevision({ meta: c.metaRevision, header: ctx.header, session: this.clientRevision });
    if (c.kind !== 'request' || c.id === undefined || c.id === null || c.method === undefined) return { revision, source };
    const expect = this.#expectation(c, ctx, revision);
    if (!expect && !ctx.routeAll) return { revision, source };
    const params = isJsonObject(c.message) && isJsonObject(c.message.params) ? c.message.params : undefined;
    const token = isJsonObject(params?._meta) ? params._meta.progressToken : undefined;
    const pending: Pending<S> = {
      id: c.id,
      method: c.method,
      expect: expect ?? { kind: 'route' },
      started: performance.now(),
      deadline: ctx.deadline ?? Infinity,
      answered: false,
      ...(ctx.stream !== undefined && { stream: ctx.stream }),
      ...((typeof token === 'string' || typeof token === 'number') && { progressToken: token }),
      ...(c.idLiteral !== undefined && { idLiteral: c.idLiteral }),
    };
    this.pending.add(pending);
    const profile = expect?.kind === 'rewrite' ? expect.request.profile?.name : undefined;
    return { revision, source, pending, ...(profile !== undefined && { profile }) };
  }

  #expectation(c: ClassifiedMessage, ctx: RequestContext<S>, revision: string): Expectation | undefined {
    const method = c.method!;
    if (method === 'initialize') {
      this.#client = identityOf(isJsonObject(c.message) && isJsonObject(c.message.params) ? c.message.params.clientInfo : undefined);
      return { kind: 'initialize', requested: requestedRevision(c.message) };
    }
    const policy = ctx.policy;
    if (!policy || !REWRITTEN_METHODS.has(method)) return undefined;
    // With both revisions named and different, the gateway changes nothing: the upstream answers the conflict.
    if (revisionsDisagree({ meta: c.metaRevision, header: ctx.header })) return undefined;
    const tool = method === 'tools/call' ? c.name : method === 'tasks/result' ? this.#taskTool(c) : undefined;
    if (method !== 'tools/list' && tool === undefined) return undefined;
    // A recording upstream's every tools/call answer goes to the recorder (src/pipeline/record.ts): parsed
    // whatever it holds, with the arguments whose values the recording must not keep.
    const recording = method === 'tools/call' && policy.record !== undefined;
    const args = recording || (method === 'tools/call' && policy.keepsArguments === true) ? this.#arguments(c) : undefined;
    const profile = this.#profileOf(c, policy, revision, ctx.client);
    const request: PendingRequest = { upstream: this.upstream, method, revision, policy, ...(tool !== undefined && { tool }), ...(args !== undefined && { arguments: args }), ...(profile && { profile }), ...(ctx.trace && { trace: ctx.trace }) };
    // Without a configured schema only the upstream's own structuredContent can change (projection, text block).
    // Traced: every answer is read, so a tool's isError reaches its span.
    const nativeOnly = !recording && !ctx.trace && method !== 'tools/list' && tool !== undefined && policy.resolve(tool)?.compiled?.output === undefined;
    return { kind: 'rewrite', request, ...(nativeOnly && { nativeOnly }) };
  }

  /**
   * The client's profile: from the request's own client info (`client`, or its `_meta`: 2026-07-28 requests
   * carry it), else from initialize's, matched once per config generation and revision.
   */
  #profileOf(c: ClassifiedMessage, policy: UpstreamPolicy, revision: string, client: JsonObject | null | undefined): ClientProfile | undefined {
    const profiles = policy.profiles;
    if (!profiles) return undefined;
    if (client !== undefined) return profiles.match({ ...identityOf(client), revision });
    const own = isJsonObject(c.message) ? clientInfo(c.message) : undefined;
    if (own) return profiles.match({ ...identityOf(own), revision });
    const memo = this.#profile;
    if (memo && memo.policy === policy && memo.revision === revision) return memo.profile;
    const profile = profiles.match({ ...this.#client, revision } satisfies ClientIdentity);
    this.#profile = { policy, revision, profile };
    return profile;
  }

  #arguments(c: ClassifiedMessage): Json | undefined {
    const params = isJsonObject(c.message) && isJsonObject(c.message.params) ? c.message.params : undefined;
    return params?.arguments;
  }

  #taskTool(c: ClassifiedMessage): string | undefined {
    const params = isJsonObject(c.message) && isJsonObject(c.message.params) ? c.message.params : undefined;
    return typeof params?.taskId === 'string' ? this.#tasks?.get(params.taskId) : undefined;
  }

  /**
   * Book an answer: initialize is negotiated (and bridged: `message` then carries the revision the client is
   * answered); a tools/call that created a task remembers its tool. `message` is the upstream's answer, or the
   * bookkeeping stub of it a worker returned (id, result.task).
   */
  settle(pending: Pending<S>, message: JsonObject): Settled {
    const result = message.result;
    if (pending.expect.kind === 'initialize') {
      if (!isJsonObject(result) || !isRevision(result.protocolVersion)) return {};
      const negotiated = negotiate(pending.expect.requested, result.protocolVersion, this.#bridge);
      // A replay of the same answer (a resumed stream) negotiates nothing new.
      const first = this.#negotiated === undefined;
      this.#negotiated = negotiated;
      if (first) this.#onNegotiated?.(negotiated);
      if (!negotiated.bridged) return { negotiated };
      return { negotiated, message: { ...message, result: { ...result, protocolVersion: negotiated.client } } };
    }
    if (pending.expect.kind === 'rewrite' && pending.method === 'tools/call' && pending.expect.request.tool !== undefined && isJsonObject(result)) {
      const task = result.task;
      if (isJsonObject(task) && typeof task.taskId === 'string') {
        // Made on first use: most sessions never create a task.
        this.#tasks ??= new Lru<string>({ max: this.#maxTasks, ttlMs: 24 * 3600_000 });
        this.#tasks.set(task.taskId, pending.expect.request.tool);
      }
    }
    return {};
  }
}
