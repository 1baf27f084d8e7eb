/**
 * The one MCP server behind every fault upstream: what it answers to a request, and how a directive
 * (./directive.ts) turns that answer into a fault — as steps (./steps.ts) any transport can run. Pure:
 * the same request gives the same bytes, which is what lets a fault-free session be compared byte for byte.
 * The 2026-07-28-only upstream (./upstream-modern.ts) is the same server in that revision's words (`modern`):
 * `server/discover` instead of `initialize`, `resultType` on every result, the caching fields on lists.
 */
import { DEFAULT_UPSTREAM_REVISION, directiveOf, progressTokenOf, toolResult, TOOLS, UPSTREAM_REVISIONS, type Directive, type UpstreamFault } from './directive.js';
import type { Step } from './steps.js';

type Message = Record<string, unknown>;

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

/** Which revision's words a fault upstream answers in: the session revisions', or 2026-07-28's. */
export type Era = 'session' | 'modern';

/** The 2026-07-28 upstream's identity and capabilities (list changes announced: the gateway listens for them). */
export const MODERN_DISCOVER = Object.freeze({
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: { listChanged: true }, logging: {} },
  ttlMs: 60_000,
  cacheScope: 'public',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fault-upstream-modern', version: '1.0.0' } },
});

/** A session revision's answer in 2026-07-28's words: results complete, lists cacheable for a while. */
function modernAnswer(answer: Message, method: unknown): Message {
  if (method === 'server/discover') return { jsonrpc: '2.0', id: answer.id, result: MODERN_DISCOVER };
  if (method === 'ping') return { jsonrpc: '2.0', id: answer.id, error: { code: -32601, message: 'Method not found: ping (not in 2026-07-28)' } };
  const result = answer.result as Record<string, unknown> | undefined;
  if (!result) return answer;
  return { ...answer, result: { ...result, resultType: 'complete', ...(method === 'tools/list' && { ttlMs: 30_000, cacheScope: 'private' }) } };
}

/** The answer to a request, as a JSON-RPC message (before any fault). */
export function answerOf(message: Message, pad: number, era: Era = 'session'): Message {
  if (era === 'modern') return modernAnswer(answerOf(message, pad), message.method);
  const id = message.id;
  const params = (message.params ?? {}) as Record<string, unknown>;
  switch (message.method) {
    case 'initialize': {
      const asked = params.protocolVersion;
      const protocolVersion = typeof asked === 'string' && UPSTREAM_REVISIONS.includes(asked) ? asked : DEFAULT_UPSTREAM_REVISION;
      return { jsonrpc: '2.0', id, result: { protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'fault-upstream', version: '1.0.0' } } };
    }
    case 'tools/list':
      return { jsonrpc: '2.0', id, result: { tools: TOOLS } };
    case 'tools/call':
      return { jsonrpc: '2.0', id, result: toolResult(params.name, (params.arguments ?? {}) as Record<string, unknown>, pad) };
    case 'ping':
      return { jsonrpc: '2.0', id, result: {} };
    default:
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${String(message.method)}` } };
  }
}

/** Notification `n` of a request: progress with its token, else a log message. */
function note(message: Message, d: Directive, n: number): Message {
  const token = progressTokenOf(message);
  const data = `${d.tag}#${n}${'.'.repeat(d.pad ?? 0)}`;
  return token === undefined
    ? { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'fault', data } }
    : { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: n + 1, message: data } };
}

/** An answer with raw invalid UTF-8 inside its first text. */
function withInvalidUtf8(answer: Message): Buffer {
  const marker = 'INVALID-UTF8-HERE';
  const result = answer.result as { content?: { text?: string }[] } | undefined;
  const first = result?.content?.[0];
  if (first && typeof first.text === 'string') first.text = `${first.text}${marker}`;
  const text = JSON.stringify(answer);
  const at = text.indexOf(marker);
  if (at === -1) return json(answer);
  return Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(text.slice(at + marker.length))]);
}

/** Answers that are not valid JSON-RPC, for the pending id. */
function invalidAnswer(id: unknown, shape: number): Buffer {
  const shapes = [
    { jsonrpc: '2.0', id },
    { jsonrpc: '2.0', id, result: {}, error: { code: -32000, message: 'both' } },
    { jsonrpc: '1.0', id, result: { content: [] } },
    { jsonrpc: '2.0', id, error: 'not an object' },
  ];
  return json(shapes[shape % shapes.length]);
}

/** Rounds of input a retry of an input-required call has answered (its `requestState` counts them). */
function roundOf(message: Message): number {
  const state = (message.params as { requestState?: unknown } | undefined)?.requestState;
  const round = typeof state === 'string' ? Number(state.slice(state.lastIndexOf('#') + 1)) : 0;
  return Number.isSafeInteger(round) ? round : 0;
}

/** The revision's multi-round-trip: the client's roots are asked for, and the state says which round this is. */
function inputRequired(message: Message, d: Directive, round: number): Message {
  const result = { resultType: 'input_required', inputRequests: { [`roots-${round}`]: { method: 'roots/list' } }, requestState: `${d.tag}#${round + 1}` };
  return { jsonrpc: '2.0', id: message.id, result };
}

/** A result nested `depth` deep (built as text: no recursion, and no JSON.stringify of a deep value). */
function deepAnswer(id: unknown, depth: number): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"deep"}],"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
}

/** An endless frame that starts as `message` does, up to the opening quote of its last string. */
export function endlessOn(message: Message, fault: Extract<UpstreamFault, { kind: 'endless' }>): Step {
  const opening = json(message);
  const head = opening.subarray(0, opening.indexOf('"', opening.lastIndexOf(':"') + 1) + 1);
  return { op: 'endless', head, capBytes: fault.capBytes, holdMs: fault.holdMs };
}

/** What to write for one client message: nothing for a notification or a response. */
export function stepsFor(message: Message, era: Era = 'session'): Step[] {
  if (message.method === undefined || message.id === undefined) return [];
  const d: Directive = directiveOf(message) ?? { tag: '' };
  const fault = d.fault;
  const round = fault?.kind === 'input-required' ? roundOf(message) : 0;
  const answer = fault?.kind === 'input-required' && era === 'modern' && round < fault.rounds ? inputRequired(message, d, round) : answerOf(message, d.pad ?? 0, era);
  const answerJson = json(answer);
  if (fault?.kind === 'reset-early') return fault.headers ? [{ op: 'flush' }, { op: 'pause', ms: 5 }, { op: 'reset' }] : [{ op: 'reset' }];

  const steps: Step[] = d.delayMs ? [{ op: 'pause', ms: d.delayMs }] : [];
  const notes = d.notes ?? 0;
  for (let n = 0; n < notes; n++) {
    if ((fault?.kind === 'kill' || fault?.kind === 'reset') && fault.after === n) break;
    steps.push({ op: 'send', json: json(note(message, d, n)) });
    if (d.gapMs) steps.push({ op: 'pause', ms: d.gapMs });
  }
  const id = message.id;
  switch (fault?.kind) {
    case 'kill':
      if (fault.partial) steps.push({ op: 'partial', json: answerJson, fraction: 0.5 });
      steps.push({ op: 'kill' });
      return steps;
    case 'reset':
      steps.push({ op: 'partial', json: answerJson, fraction: fault.fraction }, { op: 'reset' });
      return steps;
    case 'half-line':
      steps.push({ op: 'send', json: answerJson.subarray(0, Math.floor(answerJson.length / 2)) });
      steps.push({ op: 'split', json: answerJson, at: fault.at, pauseMs: 15, answer: true });
      return steps;
    case 'invalid-utf8':
      steps.push({ op: 'send', json: withInvalidUtf8(answer), answer: true });
      return steps;
    case 'oversized':
      // The directive's pad makes it so (the plan sets it past the limit).
      steps.push({ op: 'send', json: answerJson, answer: true });
      return steps;
    case 'endless':
      // After the answer: a moment between them, so the endless message does not ride in the answer's packet.
      if (fault.where !== 'answer') steps.push({ op: 'send', json: answerJson, answer: true }, { op: 'pause', ms: 20 });
      // 'stream': the upstream's transport runs endlessOn() on the session's own stream.
      if (fault.where !== 'stream') steps.push(endlessOn(fault.where === 'after' ? note(message, d, notes) : answer, fault));
      return steps;
    case 'unknown-id':
      steps.push({ op: 'send', json: json({ jsonrpc: '2.0', id: `nobody-${d.tag}`, result: { content: [] } }) });
      steps.push({ op: 'send', json: json({ jsonrpc: '2.0', id: 987654321, error: { code: -32000, message: 'stray' } }) });
      steps.push({ op: 'send', json: answerJson, answer: true });
      return steps;
    case 'duplicate-answer':
      steps.push({ op: 'send', json: answerJson, answer: true }, { op: 'send', json: answerJson, answer: true });
      return steps;
    case 'invalid-answer':
      steps.push({ op: 'send', json: invalidAnswer(id, fault.shape) });
      return steps;
    case 'deep-json':
      steps.push({ op: 'send', json: deepAnswer(id, fault.depth) });
      return steps;
    default:
      steps.push({ op: 'send', json: answerJson, answer: true });
      return steps;
  }
}
