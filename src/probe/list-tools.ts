/**
 * Lists every tool of one upstream as an MCP client would, for `check --probe`: connect with the v1 SDK
 * Client, send tools/list (following nextCursor), close. The request goes through `client.request` with a
 * permissive result schema, because the SDK's own listTools() rejects exactly the broken definitions we
 * want to report. The whole probe (spawn or connect, initialize, every page) is bounded by one deadline.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isJsonObject, type JsonObject } from '../json.js';
import { type GatewayConfig, type UpstreamConfig } from '../config/types.js';
import { RetrofitError } from '../errors.js';
import { probeTransport, type ProbeTransport } from './transport.js';

/** A runaway paginator (a cursor that never ends) must not keep `check` busy forever. */
const MAX_PAGES = 1000;

// Anything object-shaped is accepted; the definitions are inspected by the caller, not by the SDK.
const PermissiveListResult = z.looseObject({});

/** What one upstream listed. */
export interface ListedTools {
  /** Every tool definition, in list order across pages. */
  readonly tools: readonly JsonObject[];
  /** How many tools/list requests were sent. */
  readonly pages: number;
  /** Entries of `tools` that were not objects with a string `name` (skipped). */
  readonly malformed: number;
  /** The server's `serverInfo`, when it sent one. */
  readonly server?: { readonly name: string; readonly version: string };
  /** The protocol revision the server answered initialize with (the probe asks for the newest stateful one). */
  readonly revision?: string;
}

/** A transport whose incoming messages can be watched (the SDK's Transport, v1 or v2). */
export type Watchable = { onmessage?: ((message: never, extra?: never) => void) | undefined };

/**
 * Call `see` with every message the transport hands to its client, before the client's handler, whatever
 * handler the client installs (and whenever it installs it).
 */
export function watchIncoming(transport: Watchable, see: (message: unknown) => void): void {
  let handler: ((message: never, extra?: never) => void) | undefined;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () =>
      handler &&
      ((message: never, extra?: never) => {
        see(message);
        handler?.(message, extra);
      }),
    set: (h: typeof handler) => {
      handler = h;
    },
  });
}

/** The `protocolVersion` of the first InitializeResult a transport hands its client. */
function watchRevision(transport: Watchable): () => string | undefined {
  let revision: string | undefined;
  watchIncoming(transport, (message) => {
    const result = (message as { result?: { protocolVersion?: unknown; serverInfo?: unknown } }).result;
    if (revision === undefined && typeof result?.protocolVersion === 'string' && result.serverInfo !== undefined) revision = result.protocolVersion;
  });
  return () => revision;
}

/** Probe settings. */
export interface ListOptions {
  /** Deadline for the whole probe of this upstream, in ms. */
  readonly timeoutMs: number;
}

async function listAll(client: Client, upstream: string, timeoutMs: number): Promise<Omit<ListedTools, 'server'>> {
  const tools: JsonObject[] = [];
  const seen = new Set<string>();
  let malformed = 0;
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, PermissiveListResult, { timeout: timeoutMs });
    if (!Array.isArray(result.tools)) {
      throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream], { cause: new Error('tools/list result has no "tools" array') });
    }
    for (const tool of result.tools as unknown[]) {
      // The value came from JSON.parse, so an object here is a JSON object.
      if (isJsonObject(tool) && typeof tool.name === 'string') tools.push(tool as JsonObject);
      else malformed++;
    }
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return { tools, pages, malformed };
    if (typeof next !== 'string') throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream], { cause: new Error('nextCursor is not a string') });
    if (seen.has(next) || pages >= MAX_PAGES) {
      const why = seen.has(next) ? `nextCursor ${JSON.stringify(next)} was already sent (pagination loops)` : `more than ${MAX_PAGES} pages`;
      throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream], { cause: new Error(why) });
    }
    seen.add(next);
    cursor = next;
  }
}

/** How long a failed probe waits for a dying child's exit, so the error can say how it ended. */
const EXIT_WAIT_MS = 1_000;

/** Lines of a child's stderr shown in an error; stack frames are skipped, the message lines are what say why. */
const SHOWN_STDERR_LINES = 5;

/** The last lines of a child's stderr that are not stack frames, on one line. */
function lastLines(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '' && !/^\s+at\s/.test(l));
  return lines.slice(-SHOWN_STDERR_LINES).join(' | ');
}

/** A failure that names its stage and, for stdio, how the child ended and what it wrote to stderr. */
function unreachable(upstream: string, probe: ProbeTransport, err: unknown, stage: string, timeoutMs: number): RetrofitError {
  if (err instanceof RetrofitError) return err;
  // The SDK's own per-request timeout says the same as our deadline.
  if (err instanceof McpError && err.code === Number(ErrorCode.RequestTimeout)) {
    return new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', [upstream, timeoutMs], { cause: err });
  }
  const exit = probe.exit();
  const stderr = probe.stderrTail();
  const tail = stderr === '' ? '' : `; stderr: ${lastLines(stderr)}`;
  // The SDK's "Connection closed" only follows from the child going away: how it went is the cause.
  if (exit?.kind === 'exited' && !exit.requested) {
    return new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [upstream], { cause: new Error(`${probe.target}: exited during ${stage} (${exit.reason})${tail}`) });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [upstream], { cause: new Error(`${probe.target}: ${message}${tail}`, { cause: err }) });
}

/**
 * Lists every tool of `upstream`. Throws a RetrofitError: UPSTREAM_UNREACHABLE (cannot connect, spawn or
 * initialize; `cause` says why), UPSTREAM_TIMEOUT (deadline passed), UPSTREAM_PROTOCOL (malformed list).
 */
export async function listUpstreamTools(
  upstream: UpstreamConfig,
  config: Pick<GatewayConfig, 'file' | 'secrets' | 'limits'>,
  options: ListOptions,
): Promise<ListedTools> {
  const probe = probeTransport(upstream, config);
  const revisionOf = watchRevision(probe.transport as never);
  const client = new Client({ name: 'mcp-retrofit-check', version: '0.1.0' });
  const work = (async (): Promise<ListedTools> => {
    try {
      await client.connect(probe.transport, { timeout: options.timeoutMs });
    } catch (err) {
      await probe.settle(EXIT_WAIT_MS);
      throw unreachable(upstream.name, probe, err, 'initialize', options.timeoutMs);
    }
    const listed = await listAll(client, upstream.name, options.timeoutMs).catch(async (err: unknown) => {
      await probe.settle(EXIT_WAIT_MS);
      throw unreachable(upstream.name, probe, err, 'tools/list', options.timeoutMs);
    });
    const info = client.getServerVersion();
    const revision = revisionOf();
    return { ...listed, ...(info && { server: { name: info.name, version: info.version } }), ...(revision !== undefined && { revision }) };
  })();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // A child that hangs often said why on stderr (waiting for a token, a prompt, a lock).
      const tail = probe.stderrTail();
      const cause = tail === '' ? undefined : new Error(`stderr: ${lastLines(tail)}`);
      reject(new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', [upstream.name, options.timeoutMs], cause ? { cause } : {}));
    }, options.timeoutMs);
  });
  // The loser of the race must not surface as an unhandled rejection.
  work.catch(() => {});
  try {
    return await Promise.race([work, deadline]);
  } catch (err) {
    throw err instanceof RetrofitError ? err : unreachable(upstream.name, probe, err, 'tools/list', options.timeoutMs);
  } finally {
    clearTimeout(timer);
    // Ends the session (HTTP) or the whole process group (stdio), grandchildren included; a failure to close
    // says nothing about the upstream.
    await client.close().catch(() => {});
  }
}
