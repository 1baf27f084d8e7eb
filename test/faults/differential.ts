/**
 * The differential invariant: what the contract says the gateway does not change reaches the client exactly
 * as the upstream sent it — the upstream's own record (./steps.ts) is the session run directly against it.
 * - proxied (`url:`): the response body of a passthrough call byte for byte, SSE framing and all (ids,
 *   comments, `retry:`, multi-line data, CRLF);
 * - legacy clients: each event of a passthrough call (its notifications and its answer) byte for byte;
 * - sessions the gateway frames itself (stdio, shared, Streamable HTTP in front of legacy SSE): the answer
 *   and the notifications, as JSON, in order (ids and progress tokens are the client's own again; in share
 *   mode other sessions' log messages, which go to every session, are left out);
 * - across the stateless line, the same, less or plus what the contract says changes there and nothing else
 *   (acrossTheLine): an older client's answer from the 2026-07-28-only upstream loses the revision's own
 *   members (`resultType`, `ttlMs`, `cacheScope`: src/protocol/modern.ts sessionAnswer); a 2026-07-28
 *   client's answer from a pooled session gains them (`resultType: "complete"`, and the server's identity in
 *   `_meta`, as its server/discover named it: completeResult), and its log messages reach it only when its
 *   request named a `_meta` logLevel (the upstream's are at `info`, which every level the suite names lets
 *   through). 2026-07-28 clients of the 2026-07-28-only upstream are proxied: byte for byte;
 * - tools/list everywhere: the passthrough tools' definitions as the upstream listed them.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Message } from './client.js';
import { passthroughTools } from './directive.js';
import { TARGETS, UPSTREAM_TIMEOUT_MS } from './harness.js';
import { KINDS, type KindSpec } from './kinds.js';
import type { Violation } from './invariants.js';
import type { JsonRpcRequest } from './plan.js';
import { repliesTo, type ExchangeRecord, type SessionRecord } from './record.js';
import type { Written } from './steps.js';

const parse = (text: string): Message | undefined => {
  try {
    return JSON.parse(text) as Message;
  } catch {
    return undefined;
  }
};

/** A notification as the client should see it: the progress token is the client's own. */
function normalized(m: Message, token: unknown): Message {
  const params = m.params as Record<string, unknown> | undefined;
  if (!params || !('progressToken' in params)) return m;
  return { ...m, params: { ...params, progressToken: token } };
}

function toolsOf(m: Message | undefined, passthrough: ReadonlySet<string>): Message[] {
  const tools = (m?.result as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) ? (tools as Message[]).filter((t) => passthrough.has(String(t.name))) : [];
}

/** Result members of 2026-07-28 that the session revisions do not have. */
const MODERN_ONLY = ['resultType', 'ttlMs', 'cacheScope'];

/**
 * The upstream's answer as the client should get it across the stateless line (unchanged where there is
 * none): the older client of the 2026-07-28-only upstream (target modern) gets it without the revision's own
 * members; a 2026-07-28 client of a pooled session gets it complete, with the server's identity.
 */
function acrossTheLine(answer: Message, record: SessionRecord): Message {
  const result = answer.result as Record<string, unknown> | undefined;
  if (!result) return answer;
  const { target } = record.plan;
  if (target === 'modern') return { ...answer, result: Object.fromEntries(Object.entries(result).filter(([k]) => !MODERN_ONLY.includes(k))) };
  if (TARGETS[target].client !== 'stateless' || TARGETS[target].proxied) return answer;
  const meta = { ...(result._meta as Record<string, unknown> | undefined), 'io.modelcontextprotocol/serverInfo': record.serverInfo };
  return { ...answer, result: { ...result, resultType: typeof result.resultType === 'string' ? result.resultType : 'complete', _meta: meta } };
}

/** A log message the gateway rightly kept from a 2026-07-28 client that named no `_meta` logLevel. */
function unasked(m: Message, record: SessionRecord): boolean {
  const { target } = record.plan;
  return TARGETS[target].client === 'stateless' && !TARGETS[target].proxied && record.plan.logLevel === undefined && m.method === 'notifications/message';
}

/** The upstream's record of a request: by its id, or (share mode) by the id the gateway gave it, `<n>~<JSON of the id>`. */
function writtenFor(upstream: ReadonlyMap<string, Written>, id: string | number): Written | undefined {
  const direct = upstream.get(JSON.stringify(id));
  if (direct) return direct;
  const suffix = `~${JSON.stringify(id)}`;
  for (const [key, written] of upstream) {
    const wire: unknown = JSON.parse(key);
    if (typeof wire === 'string' && /^\d+~/.test(wire) && wire.endsWith(suffix) && wire.indexOf('~') === wire.length - suffix.length) return written;
  }
  return undefined;
}

/**
 * A timeout (or busy) error the gateway rightly gave, in a session whose fault slows its own upstream (a stalled pipe),
 * or (busy) in share mode, where any session's stalled pipe is every session's:
 * the upstream's answer left later than the gateway's timeout after the client sent the request, or never
 * (it was still stuck in the pipe). Nothing to compare then. Anywhere else a timeout is what it looks like.
 */
function isTimely(reply: Message, written: Written | undefined, r: ExchangeRecord, record: SessionRecord): boolean {
  const code = ((reply.error as { data?: { code?: unknown } } | undefined)?.data?.code);
  // A child that stopped reading its stdin: past the bound of bytes waiting for it, the gateway refuses at once
  // what it would otherwise queue without end (the request never reached the upstream). In share mode the
  // child is every session's: another session's stalled pipe is this one's too.
  if (code === 'RETROFIT_ERR_UPSTREAM_BUSY' && record.plan.target === 'shared') return written === undefined;
  if (!(KINDS[record.plan.kind] as KindSpec).slowsUpstream) return false;
  if (code === 'RETROFIT_ERR_UPSTREAM_BUSY') return written === undefined;
  if (code !== 'RETROFIT_ERR_UPSTREAM_TIMEOUT') return false;
  return written?.answeredAt === undefined || written.answeredAt - r.exchange.startedAt >= UPSTREAM_TIMEOUT_MS - 250;
}

/** Compare one request's answer; returns what differs, or undefined. */
function compareOne(record: SessionRecord, r: ExchangeRecord, request: JsonRpcRequest, written: Written | undefined): string | undefined {
  const id = request.id;
  const messages = r.answersOn?.messages ?? r.exchange.messages;
  const reply = repliesTo(messages, id)[0];
  if (reply === undefined) return undefined; // one-answer says what is wrong with that
  if (isTimely(reply, written, r, record)) return undefined;
  if (!written) return `the upstream never got request ${JSON.stringify(id)}, yet the client got ${JSON.stringify(reply).slice(0, 300)} (${r.exchange.status ?? '-'})`;
  const upstreamReply = written.messages.map(parse).find((m) => m !== undefined && m.method === undefined);
  const passthrough = passthroughTools(record.plan.revision);
  if (request.method === 'tools/list') {
    if (reply.error !== undefined) return `an error instead of the tools: ${JSON.stringify(reply).slice(0, 300)}`;
    const got = toolsOf(reply, passthrough);
    return isDeepStrictEqual(got, toolsOf(upstreamReply, passthrough)) ? undefined : `passthrough tools changed: ${JSON.stringify(got).slice(0, 300)}`;
  }
  const target = record.plan.target;
  if (TARGETS[target].proxied && r.plan?.messages.length === 1) {
    const got = Buffer.concat(r.exchange.body);
    const sent = Buffer.concat(written.bytes);
    return got.equals(sent) ? undefined : `body differs from the upstream's (${got.length} vs ${sent.length} bytes): got ${JSON.stringify(got.toString('utf8').slice(0, 300))}, upstream ${JSON.stringify(sent.toString('utf8').slice(0, 300))}`;
  }
  if (target === 'legacy' && r.answersOn) {
    // Every event the upstream wrote for it arrives whole and in order among the stream's events.
    let at = 0;
    const events = r.answersOn.events;
    for (const bytes of written.bytes) {
      while (at < events.length && !events[at]!.raw.equals(bytes)) at++;
      if (at === events.length) return `event missing or changed: ${JSON.stringify(bytes.toString('utf8').slice(0, 300))}`;
      at++;
    }
    return undefined;
  }
  const token = (request.params._meta as { progressToken?: unknown }).progressToken;
  const expected = written.messages
    .map(parse)
    .filter((m): m is Message => m !== undefined && !unasked(m, record))
    .map((m) => (m.method === undefined ? acrossTheLine({ ...m, id }, record) : normalized(m, token)));
  // Share mode broadcasts a log message to every session (src/upstream/shared-stdio.ts): another session's are not this one's to compare.
  const others = (m: Message): boolean => target === 'shared' && m.method === 'notifications/message' && !String((m.params as { data?: unknown }).data).startsWith(`${record.plan.tag}#`);
  const got = r.exchange.messages.filter((m) => (m.method !== undefined && !others(m)) || m.id === id);
  if (isDeepStrictEqual(got, expected)) return undefined;
  const at = got.findIndex((m, i) => !isDeepStrictEqual(m, expected[i]));
  const first = at === -1 ? got.length : at;
  const show = (m: Message | undefined): string => (m === undefined ? 'nothing' : JSON.stringify(m).slice(0, 300));
  return `${got.length} messages for ${expected.length} the upstream sent; message ${first + 1} is ${show(got[first])}, the upstream's ${show(expected[first])}`;
}

export function checkDifferential(record: SessionRecord, upstream: ReadonlyMap<string, Written>): Violation[] {
  const out: Violation[] = [];
  for (const r of record.exchanges) {
    if (!r.plan?.compare || r.left) continue;
    const passthrough = passthroughTools(record.plan.revision);
    for (const request of r.plan.messages) {
      if (request.method === 'tools/call' && !passthrough.has(String(request.params.name))) continue;
      const problem = compareOne(record, r, request, writtenFor(upstream, request.id));
      if (problem !== undefined) out.push({ invariant: 'differential', detail: `${r.label} ${request.method}${request.method === 'tools/call' ? ` ${String(request.params.name)}` : ''}: ${problem}` });
    }
  }
  return out;
}
