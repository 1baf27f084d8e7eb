/**
 * A 2026-07-28 client's "session" through the gateway (the stateless targets): the revision has no initialize
 * and no session, so it is a `server/discover` (id 0, what a client of the revision asks first), then the
 * planned POSTs, one after the other or together, each a request of its own with the `_meta` envelope and the
 * mirrored headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name), each with its client fault. No GET stream, no
 * DELETE. A client that vanishes closes the response stream: on 2026-07-28 that cancels the request, so it
 * is owed nothing, and the session goes on (there is nothing to come back to). A call answered
 * `input_required` is sent again (a request of its own) with `inputResponses` — roots/list: no roots —
 * and the `requestState`, as many times as it is asked, up to MAX_ROUNDS.
 */
import { Agent } from 'node:http';
import { exchange } from './client.js';
import { DIRECTIVE_KEY } from './directive.js';
import { TARGETS } from './harness.js';
import { envelope, type JsonRpcRequest, type PostPlan, type SessionPlan } from './plan.js';
import { statelessHeaders, type SessionRecord } from './record.js';
import { ANSWER_DEADLINE_MS, answerDeadline, faultOptions } from './session-streamable.js';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
/** Retries of one call that asks for input again and again, at most (the plans ask twice at most). */
const MAX_ROUNDS = 4;

/** The retry of `request` that answers an input_required result, or undefined when the reply is not one. */
function retryOf(request: JsonRpcRequest, reply: Record<string, unknown> | undefined, round: number): JsonRpcRequest | undefined {
  const result = reply?.result as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown } | undefined;
  if (result?.resultType !== 'input_required' || typeof result.inputRequests !== 'object' || result.inputRequests === null) return undefined;
  const inputResponses = Object.fromEntries(Object.entries(result.inputRequests as Record<string, { method?: unknown }>).map(([k, r]) => [k, r.method === 'roots/list' ? { roots: [] } : {}]));
  const id = `${String(request.id)}~${round}`;
  const meta = request.params._meta as Record<string, unknown>;
  const directive = meta[DIRECTIVE_KEY] as Record<string, unknown> | undefined;
  const params = { ...request.params, inputResponses, ...(typeof result.requestState === 'string' && { requestState: result.requestState }), _meta: { ...meta, ...(directive && { [DIRECTIVE_KEY]: { ...directive, rid: id } }) } };
  return { ...request, id, params };
}

/** The session's discover (tagged: the 2026-07-28-only upstream answers it as any request, JSON). */
function discoverRequest(plan: SessionPlan): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: { ...envelope(plan.logLevel), [DIRECTIVE_KEY]: { tag: plan.tag, mode: 'json', rid: 0 } } } };
}

export async function runStateless(origin: string, plan: SessionPlan): Promise<SessionRecord> {
  const url = `${origin}${TARGETS[plan.target].path}`;
  const record: SessionRecord = { plan, exchanges: [], openings: [], notes: [] };
  // One client: its connections are kept between exchanges, and all closed when the session is over.
  const agent = new Agent({ keepAlive: true });
  try {
    const message = discoverRequest(plan);
    const discover = exchange({ agent, method: 'POST', url, headers: statelessHeaders(message), body: Buffer.from(JSON.stringify(message)), deadlineMs: ANSWER_DEADLINE_MS });
    record.exchanges.push({ label: 'discover', ids: [0], exchange: discover });
    await discover.done;
    const reply = discover.messages.find((m) => m.id === 0);
    const result = reply?.result as { _meta?: Record<string, unknown> } | undefined;
    // Served: a DiscoverResult. Each request stands alone, so the planned ones go out whatever it said.
    const ok = discover.status === 200 && result !== undefined;
    const detail = `status ${String(discover.status ?? '-')}, ${discover.ending ?? 'open'}: ${JSON.stringify(reply ?? discover.text().slice(0, 300)).slice(0, 300)}`;
    record.openings.push({ label: 'discover', ok, detail, faulted: false });
    if (!ok) record.notes.push(`discover: no DiscoverResult (${detail})`);
    record.serverInfo = result?._meta?.[SERVER_INFO];
    const send = async (post: PostPlan, n: number, round = 0): Promise<void> => {
      const first = post.messages[0]!;
      const body = Buffer.from(JSON.stringify(post.messages.length === 1 ? first : post.messages));
      const ex = exchange({ agent, method: 'POST', url, headers: statelessHeaders(first), body, deadlineMs: answerDeadline(post), ...faultOptions(post) });
      const left = post.client?.kind === 'vanish' || post.client?.kind === 'stop-reading-vanish';
      record.exchanges.push({ label: round === 0 ? `post ${n}` : `post ${n} retry ${round}`, ids: post.messages.map((m) => m.id), exchange: ex, plan: post, ...(left && { left }) });
      await ex.done;
      const retry = post.messages.length === 1 && round < MAX_ROUNDS ? retryOf(first, ex.messages.find((m) => m.id === first.id), round + 1) : undefined;
      if (retry) await send({ messages: [retry], compare: false }, n, round + 1);
    };
    if (plan.parallel) await Promise.all(plan.posts.map((post, n) => send(post, n)));
    else for (const [n, post] of plan.posts.entries()) await send(post, n);
    return record;
  } finally {
    agent.destroy();
  }
}
