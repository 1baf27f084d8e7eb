/**
 * The id space of one shared stdio child (./shared-stdio.ts does the I/O): which session each message
 * belongs to, both ways. Request ids, `params._meta.progressToken` and the `requestId` of
 * notifications/cancelled go as wire ids (src/jsonrpc/multiplex.ts). An answer's id is mapped back by text where it sits at either end
 * (where src/jsonrpc/sniff.ts finds it), so a large answer is not parsed on the event loop: the session may
 * still hand it to a worker unparsed. No I/O here: every decision is returned as routes.
 */
import { lazyTrail, stringifyKept, trailOf, type LiteralTrail } from '../json-literals.js';
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { fromWire, isKey, metaTokenOf, paramOf, restoreWire, routingFacts, toWire, withMetaToken, withParam, type Key, type RoutingFacts } from '../jsonrpc/multiplex.js';
import { endsOf, locateResponseId, sniffResponseId, textHead } from '../jsonrpc/sniff.js';
import { answerProblem } from '../jsonrpc/strict.js';
import type { Logger } from '../log.js';
import type { Demuxed } from '../pipeline/offload/demux.js';

/**
 * The answer `data` to the request sent as `wire`, with `value` for its id; undefined when the id is not at
 * either end written as the gateway wrote it (the caller then parses the answer). Bytes (a long line, in shared
 * memory that is the caller's: LinkFrame) are changed in place, not copied: the original id is always shorter
 * than the wire id that holds it, and the bytes it leaves are spaces, white space JSON allows after a value.
 */
export function replaceAnswerId(data: string, wire: string, value: Key): string | undefined;
export function replaceAnswerId(data: Buffer, wire: string, value: Key): Buffer | undefined;
export function replaceAnswerId(data: string | Buffer, wire: string, value: Key): string | Buffer | undefined;
export function replaceAnswerId(data: string | Buffer, wire: string, value: Key): string | Buffer | undefined {
  const at = locateResponseId(data);
  if (at?.literal !== JSON.stringify(wire)) return undefined;
  if (typeof data === 'string') return `${data.slice(0, at.start)}${JSON.stringify(value)}${data.slice(at.end)}`;
  const id = Buffer.from(JSON.stringify(value), 'utf8');
  if (id.length > at.end - at.start) return undefined;
  id.copy(data, at.start);
  data.fill(0x20, at.start + id.length, at.end);
  return data;
}

/**
 * Where one message goes: a session (by number), every session, or back to the child (answered here). A long
 * line goes as bytes (answerUnparsed, fromDemuxed).
 */
export type Route = { readonly to: 'child'; readonly json: string } | { readonly to: number | 'all'; readonly json: string | Buffer };

/**
 * One message of the child's to route: what it is routed by, its own JSON, the same with the gateway's wire id
 * or token restored (only asked for when it holds one), and the message itself (only the child's first
 * initialize's answer is read whole).
 */
interface Routable {
  readonly facts: RoutingFacts;
  json(): string | Buffer;
  restored(): string | Buffer;
  parsed(): JsonObject;
  /** The number literals a double cannot hold of the message's text, for what is written again from parsed(). */
  trail(): LiteralTrail | undefined;
}

/**
 * A message parsed here (`raw`: its text, when it is the whole line), written again with the number literals a
 * double cannot hold as the child wrote them (`trail`: its literals, asked for only then).
 */
function parsedRoutable(m: unknown, trail: () => LiteralTrail | undefined, raw?: string): Routable {
  return {
    facts: routingFacts(m),
    json: () => raw ?? stringifyKept(m, trail()),
    restored: () => stringifyKept(restoreWire(m as JsonObject) ?? m, trail()),
    parsed: () => m as JsonObject,
    trail,
  };
}

/** A session's message for the child: the text to send (none: handled here) and answers given here. */
export interface Outgoing {
  readonly json: string | undefined;
  /** Answers from the cache (InitializeResult): deliver after send() returned, the request registered. */
  readonly replies: readonly Route[];
  /** Wire ids it carried (to forget when the send failed). */
  readonly wires: readonly string[];
}

/** A session waiting for the child's first initialize, with the id of its own initialize request. */
export interface InitWaiter {
  readonly session: number;
  readonly id: Key;
}

/**
 * The child's initialization: not yet, asked by one session (`wire`; others waiting), done (result cached), or
 * failed — a child that failed its first initialize is restarted, never asked again (see failInit).
 */
type Init =
  | { readonly state: 'none' }
  | { readonly state: 'pending'; readonly wire: string; waiters: InitWaiter[] }
  | { readonly state: 'done'; readonly result: string }
  | { readonly state: 'failed'; readonly why: string };

const DROP = Symbol('drop');
/** JSON-RPC "internal error": what the child gets for a server→client request share mode cannot route. */
export const UNROUTABLE = -32603;
const rpcError = (id: Key, message: string): string => JSON.stringify({ jsonrpc: '2.0', id, error: { code: UNROUTABLE, message } });

/** The id tables of one child: requests in flight per session, server→client requests, initialize. */
export class SharedIds {
  readonly #log: Logger;
  /** Attached sessions → wire ids of their requests not answered yet (initialize excluded: never cancelled). */
  readonly #inflight = new Map<number, Set<string>>();
  /** Server→client requests routed to a session, by JSON of the child's id: only that session may answer. */
  readonly #asked = new Map<string, { readonly session: number; readonly id: Key }>();
  #init: Init = { state: 'none' };
  #initialized = false;

  constructor(log: Logger) {
    this.#log = log;
  }

  attach(session: number): void {
    this.#inflight.set(session, new Set());
  }

  /** Why the child's first initialize failed, once it did: the child is to be restarted. */
  get initFailure(): string | undefined {
    return this.#init.state === 'failed' ? this.#init.why : undefined;
  }

  /** True when `session` sent the child's first initialize (as `id`, when given) and it is still unanswered. */
  initAskedBy(session: number, id?: Key): boolean {
    const init = this.#init;
    if (init.state !== 'pending') return false;
    const first = fromWire(init.wire);
    return first?.session === session && (id === undefined || first.value === id);
  }

  /**
   * The child's first initialize failed (`why`; its asker no longer waits): the sessions still waiting for it,
   * each with its own request id, for the caller to answer; the child is done for (initFailure).
   */
  failInit(why: string): InitWaiter[] {
    const init = this.#init;
    this.#init = { state: 'failed', why };
    return init.state === 'pending' ? init.waiters : [];
  }

  /** `session` no longer waits for the child's first initialize as request `id` (it gave up on its own). */
  forgetInitWaiter(session: number, id: Key): void {
    if (this.#init.state === 'pending') this.#init.waiters = this.#init.waiters.filter((w) => w.session !== session || w.id !== id);
  }

  /** `session` leaves: the messages for the child that cancel what it still waits for, or what waits for it. */
  detach(session: number): string[] {
    const out = [...(this.#inflight.get(session) ?? [])].map((requestId) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'client session closed' } }));
    this.#inflight.delete(session);
    if (this.#init.state === 'pending') this.#init.waiters = this.#init.waiters.filter((w) => w.session !== session);
    for (const [key, asked] of this.#asked) {
      if (asked.session !== session) continue;
      this.#asked.delete(key);
      out.push(rpcError(asked.id, 'the client session this request was routed to closed'));
    }
    return out;
  }

  /** One message (or batch) of `session` for the child; `log` is the session's. */
  toChild(session: number, json: string, log: Logger = this.#log): Outgoing {
    const replies: Route[] = [];
    const wires: string[] = [];
    let parsed: Json;
    try {
      parsed = JSON.parse(json) as Json;
    } catch {
      return { json, replies, wires }; // the edge parsed it already: not reached
    }
    const one = (m: Json): Json | typeof DROP => this.#toChild(session, m, replies, wires, log);
    // Written again (ids and tokens remapped) with the number literals a double cannot hold as the client wrote
    // them: a tool's 64-bit argument reaches the child exactly.
    const trail = lazyTrail(json);
    if (!Array.isArray(parsed)) {
      const out = one(parsed);
      return { json: out === DROP ? undefined : out === parsed ? json : stringifyKept(out, trail()), replies, wires };
    }
    const out = parsed.map(one);
    if (out.every((m, i) => m === parsed[i])) return { json, replies, wires };
    const kept = out.flatMap((m, i) => (m === DROP ? [] : [stringifyKept(m, trail()?.children.get(String(i)))]));
    return { json: kept.length === 0 ? undefined : `[${kept.join(',')}]`, replies, wires };
  }

  /**
   * The send carrying `wires` failed: nothing of it is in flight. When it carried the child's first
   * initialize, that failed (see failInit): returns the sessions waiting for it.
   */
  unsent(session: number, wires: readonly string[]): InitWaiter[] {
    for (const wire of wires) this.#inflight.get(session)?.delete(wire);
    return this.#init.state === 'pending' && wires.includes(this.#init.wire) ? this.failInit('its first initialize could not be sent') : [];
  }

  #toChild(session: number, m: Json, replies: Route[], wires: string[], log: Logger): Json | typeof DROP {
    if (!isJsonObject(m)) return m;
    const { method, id } = m;
    if (typeof method === 'string' && 'id' in m) {
      if (!isKey(id)) return m;
      const wire = toWire(session, id);
      const token = metaTokenOf(m);
      const remapped = token === undefined ? { ...m, id: wire } : withMetaToken({ ...m, id: wire }, toWire(session, token));
      if (method !== 'initialize') {
        wires.push(wire);
        this.#inflight.get(session)?.add(wire);
        return remapped;
      }
      const init = this.#init;
      // The cached answer as the child gave it: the session negotiates it for its own client (src/session/state.ts).
      if (init.state === 'done') replies.push({ to: session, json: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${init.result}}` });
      else if (init.state === 'pending') init.waiters.push({ session, id });
      else if (init.state === 'failed') replies.push({ to: session, json: rpcError(id, `the shared child failed its first initialize (${init.why}); it is being restarted`) });
      if (init.state !== 'none') return DROP;
      this.#init = { state: 'pending', wire, waiters: [] };
      wires.push(wire);
      return remapped;
    }
    if (method === 'notifications/initialized') {
      if (this.#initialized) return DROP;
      this.#initialized = true;
      return m;
    }
    if (method === 'notifications/cancelled') {
      const cancelled = paramOf(m, 'requestId');
      if (cancelled === undefined) return m;
      const wire = toWire(session, cancelled);
      this.#inflight.get(session)?.delete(wire);
      return withParam(m, 'requestId', wire);
    }
    if (typeof method === 'string') return m;
    // An answer to a server→client request: the child's own id, as it sent it.
    const key = JSON.stringify(id);
    if (this.#asked.get(key)?.session !== session) {
      log.warn({ id }, 'share mode: a client answered a server request not routed to its session; dropped');
      return DROP;
    }
    this.#asked.delete(key);
    return m;
  }

  /** One message (or batch) from the child, as routes. */
  fromChild(data: string): Route[] {
    // Most messages are answers: mapped back by text, not parsed here.
    const answered = this.answerUnparsed(data);
    if (answered) return answered;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.#log.warn({ line: data.slice(0, 200), bytes: data.length }, 'upstream sent something that is not JSON; skipped');
      return [];
    }
    // A batch: each message on its own way.
    const trail = lazyTrail(data);
    if (!Array.isArray(parsed)) return this.#route(parsedRoutable(parsed, trail, data));
    return parsed.flatMap((m, i) => this.#route(parsedRoutable(m, () => trail()?.children.get(String(i)))));
  }

  /**
   * A long line (bytes) that is not an answer with the gateway's id at an end, as a worker sorted it out
   * (src/pipeline/offload/demux.ts; not `deep`: the caller drops that), as routes: each message's own bytes or
   * the restored ones, never decoded here.
   */
  fromDemuxed(data: Buffer, demuxed: Exclude<Demuxed<Buffer>, { kind: 'deep' }>): Route[] {
    if (demuxed.kind === 'invalid') {
      this.#log.warn({ line: textHead(data), bytes: data.length }, 'upstream sent something that is not JSON; skipped');
      return [];
    }
    return demuxed.messages.flatMap((m) => {
      const json = m.json ?? data;
      const text = (): string => json.toString('utf8');
      return this.#route({ facts: m.facts, json: () => json, restored: () => m.restored ?? json, parsed: () => JSON.parse(text()) as JsonObject, trail: () => trailOf(text()) });
    });
  }

  /**
   * An answer with the gateway's wire id at either end, mapped back without parsing it: its route, the id
   * rewritten (fromChild's first step). A long line that came as bytes (LinkFrame) is rewritten in place and
   * neither decoded nor checked here: its session checks it. Undefined for anything else, which the caller
   * parses (bytes: checks, decodes and gives to fromChild).
   */
  answerUnparsed(data: string | Buffer): Route[] | undefined {
    const wire = sniffResponseId(endsOf(data));
    const origin = typeof wire === 'string' && !this.#isInit(wire) ? fromWire(wire) : undefined;
    if (!origin) return undefined;
    const json = replaceAnswerId(data, wire as string, origin.value);
    return json === undefined ? undefined : this.#answer(wire as string, origin.session, json);
  }

  #route(r: Routable): Route[] {
    const f = r.facts;
    if (!f.object) {
      this.#log.warn({ line: textHead(r.json()) }, 'upstream sent something that is not a JSON-RPC message; skipped');
      return [];
    }
    const { method, id } = f;
    if (method === undefined) {
      if (typeof id === 'string' && this.#isInit(id)) return this.#initAnswered(r.parsed(), r.trail());
      const origin = fromWire(id);
      if (origin) return this.#answer(id as string, origin.session, r.restored());
      this.#log.debug({ id }, 'share mode: upstream answered an id no session sent; dropped');
      return [];
    }
    if (f.hasId) return this.#serverRequest(r, method);
    if (method === 'notifications/progress') {
      const origin = fromWire(f.progressToken);
      if (origin && this.#inflight.has(origin.session)) return [{ to: origin.session, json: r.restored() }];
      this.#log.debug({ token: f.progressToken }, 'share mode: progress for no attached session; dropped');
      return [];
    }
    if (method === 'notifications/cancelled') {
      // The child gave up a request of its own: only the session it asked knows it.
      const key = JSON.stringify(f.requestId);
      const asked = this.#asked.get(key);
      this.#asked.delete(key);
      return asked ? [{ to: asked.session, json: r.json() }] : [];
    }
    const token = fromWire(f.metaToken);
    if (token && this.#inflight.has(token.session)) return [{ to: token.session, json: r.restored() }];
    return [{ to: 'all', json: r.json() }];
  }

  #isInit(wire: string): boolean {
    return this.#init.state === 'pending' && this.#init.wire === wire;
  }

  #answer(wire: string, session: number, json: string | Buffer): Route[] {
    // Not in flight: the session cancelled it or is gone; nobody waits for it.
    if (this.#inflight.get(session)?.delete(wire)) return [{ to: session, json }];
    this.#log.debug({ id: wire }, 'share mode: answer for a request no session waits for; dropped');
    return [];
  }

  #initAnswered(m: JsonObject, trail: LiteralTrail | undefined): Route[] {
    const init = this.#init;
    if (init.state !== 'pending') return [];
    // Every session waiting gets the answer; one that is no InitializeResult (an error, or no valid response:
    // each session answers that with its own error) fails the child, which is then restarted (initFailure).
    const problem = answerProblem('initialize', m);
    const failure = problem !== undefined ? `it answered initialize with an invalid response (${problem})` : isJsonObject(m.result) ? undefined : 'it answered initialize with an error';
    this.#init = failure === undefined ? { state: 'done', result: stringifyKept(m.result, trail?.children.get('result')) } : { state: 'failed', why: failure };
    const first = fromWire(init.wire)!;
    return [{ session: first.session, id: first.value }, ...init.waiters].map((w) => ({ to: w.session, json: stringifyKept({ ...m, id: w.id }, trail) }));
  }

  #serverRequest(r: Routable, method: string): Route[] {
    const id = r.facts.id;
    if (!isKey(id)) return [];
    // The child checks the connection, not a client: the gateway answers.
    if (method === 'ping') return [{ to: 'child', json: JSON.stringify({ jsonrpc: '2.0', id, result: {} }) }];
    const token = fromWire(r.facts.metaToken);
    const busy = [...this.#inflight].filter(([, wires]) => wires.size > 0).map(([session]) => session);
    const only = busy.length === 0 && this.#inflight.size === 1 ? [...this.#inflight.keys()] : busy;
    const session = token ? (this.#inflight.has(token.session) ? token.session : undefined) : only.length === 1 ? only[0] : undefined;
    if (session === undefined) {
      this.#log.warn({ method, id, sessions: this.#inflight.size, busy: busy.length }, 'share mode cannot route a server request to one client session; answered with an error');
      return [{ to: 'child', json: rpcError(id, `share mode cannot route "${method}" to one client session (${this.#inflight.size} attached, ${busy.length} with requests in flight)`) }];
    }
    this.#asked.set(JSON.stringify(id), { session, id });
    return [{ to: session, json: token ? r.restored() : r.json() }];
  }

  /**
   * A message the link dropped (its size, its depth): the sessions to tell, each with its own id. The answer
   * to the first initialize fails the child (initFailure) and tells every session waiting for it.
   */
  dropped(wire: string | number | undefined, reason: string): InitWaiter[] {
    if (typeof wire === 'string' && this.#isInit(wire)) {
      const first = fromWire(wire)!;
      return [{ session: first.session, id: first.value }, ...this.failInit(`its answer to initialize was dropped (${reason})`)];
    }
    const origin = fromWire(wire);
    if (origin && this.#inflight.get(origin.session)?.delete(wire as string)) return [{ session: origin.session, id: origin.value }];
    this.#log.warn({ id: wire, reason }, 'share mode: upstream message dropped; no session to tell');
    return [];
  }
}
