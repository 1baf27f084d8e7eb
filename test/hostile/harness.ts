/**
 * Shared machinery of the hostile suite: the gateway (the real buildApp) in front of either a real v1 SDK
 * Streamable HTTP upstream or a real stdio child, a raw JSON-RPC client that sends exactly the bytes a test
 * wants, and a view of this process's child processes (to prove none is left behind).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { DEFAULTS, STATELESS_DEFAULTS, type GatewayConfig, type StdioUpstreamConfig, type ToolConfig } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startV1Server } from '../helpers/v1-server.js';
import { FIXTURE_SERVER, REPO } from '../helpers/stdio-gateway.js';

export type TargetKind = 'http' | 'stdio';

export interface Target {
  readonly kind: TargetKind;
  readonly gw: TestGateway;
  /** The gateway URL of the upstream's route. */
  readonly url: string;
}

export const ACCEPT_BOTH = 'application/json, text/event-stream';

type Overrides = Partial<Omit<GatewayConfig, 'upstreams'>>;

/** A stdio upstream running the v1 SDK fixture server. */
export function stdioUpstream(name: string, extra: { args?: string[]; tools?: Record<string, ToolConfig>; command?: string } = {}): StdioUpstreamConfig {
  return {
    kind: 'stdio',
    name,
    path: `/${name}/mcp`,
    timeoutMs: DEFAULTS.timeoutMs,
    tools: extra.tools ?? {},
    command: extra.command ?? process.execPath,
    args: extra.args ?? [FIXTURE_SERVER],
    maxSessions: DEFAULTS.maxSessionsCommand,
    env: {},
    // The test config's file lives in a directory that does not exist; run where the fixtures are.
    cwd: REPO,
    bridge: true,
    share: false,
    idleTimeoutMs: DEFAULTS.idleTimeoutMs,
    stateless: STATELESS_DEFAULTS,
    stderr: 'debug',
  };
}

/** The gateway in front of a fresh upstream of the given kind (everything closed when the test ends). */
export async function startTarget(kind: TargetKind, overrides: Overrides = {}): Promise<Target> {
  if (kind === 'http') {
    const upstream = await startV1Server({ jsonResponse: true });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', upstream.url)], overrides));
    return { kind, gw, url: gw.url('/up/mcp') };
  }
  const gw = await startGateway(gatewayConfig([stdioUpstream('up')], overrides));
  return { kind, gw, url: gw.url('/up/mcp') };
}

/** One raw HTTP answer: status, headers and the JSON-RPC messages in it (JSON body or SSE data). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly messages: Record<string, unknown>[];
}

/** Parse a body as JSON or as SSE events; whatever does not parse is left out of `messages`. */
export function messagesOf(text: string, contentType: string | null): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const push = (raw: string): void => {
    try {
      const value: unknown = JSON.parse(raw);
      for (const m of Array.isArray(value) ? value : [value]) if (typeof m === 'object' && m !== null) out.push(m as Record<string, unknown>);
    } catch {
      // not JSON: the test looks at `text`
    }
  };
  if (contentType?.startsWith('text/event-stream')) {
    for (const block of text.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''));
      if (data.length > 0) push(data.join('\n'));
    }
  } else if (text.length > 0) {
    push(text);
  }
  return out;
}

/** POST raw bytes (or a JSON value) with the given headers; defaults: JSON content type, both Accepts. */
export async function post(url: string, body: string | Uint8Array | object, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Answer> {
  const bytes = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body: bytes, ...(signal && { signal }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, messages: messagesOf(text, res.headers.get('content-type')) };
}

/** Initialize a session (2025-06-18) the raw way; returns its id. */
export async function openSession(url: string, clientName = 'hostile'): Promise<string> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
  });
  const session = init.headers.get('mcp-session-id');
  if (init.status !== 200 || session === null) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const ack = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders(session));
  if (ack.status !== 202) throw new Error(`initialized notification: ${ack.status}`);
  return session;
}

/** The headers a client sends on a session after initialize. */
export function sessionHeaders(session: string): Record<string, string> {
  return { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
}

/** A tools/call request for the fixture's `echo` tool (both upstreams have it). */
export function echoCall(id: unknown, text: string): object {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } };
}

/** The text of the first content block of a tools/call answer. */
export function echoed(message: Record<string, unknown> | undefined): unknown {
  const result = message?.result as { content?: { text?: unknown }[] } | undefined;
  return result?.content?.[0]?.text;
}

/** Pids of this process's direct children (Linux /proc), to prove none is left behind. */
export function childPids(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 is the parent pid; the command (field 2) may hold spaces, so split after its closing paren.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}
