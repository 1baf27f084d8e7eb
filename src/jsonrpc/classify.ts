/**
 * Classify a JSON-RPC body once at the edge. Everything downstream receives the typed result
 * instead of re-inspecting raw JSON.
 */
import { isJsonObject } from '../json.js';
import { META_PROTOCOL_VERSION } from '../protocol/era.js';

export type JsonRpcId = string | number | null;

export type MessageKind = 'request' | 'notification' | 'response' | 'invalid';

export interface ClassifiedMessage {
  readonly kind: MessageKind;
  /** Requests and responses. */
  readonly id?: JsonRpcId;
  /** `id` as the body wrote it, when JSON.parse could not read it back exactly (src/jsonrpc/id-literal.ts). */
  readonly idLiteral?: string;
  /** Requests and notifications. */
  readonly method?: string;
  /** `params.name` of tools/call (and other name-routed methods: prompts/get). */
  readonly name?: string;
  /** `params.uri` of resources/read. */
  readonly uri?: string;
  /** `params._meta["io.modelcontextprotocol/protocolVersion"]`, if present. */
  readonly metaRevision?: unknown;
  /** Responses: true when the message carries `error` rather than `result`. */
  readonly isError?: boolean;
  /** The message itself. */
  readonly message: unknown;
}

export interface ClassifiedBody {
  /** True when the body was a JSON array (a 2025-03-26 batch). */
  readonly batch: boolean;
  readonly messages: readonly ClassifiedMessage[];
}

/** A map key for a request id: ids of different JSON types are different requests (1 and "1" must not collide). */
export function idKey(id: JsonRpcId): string {
  return typeof id === 'number' ? `n${id}` : `s${String(id)}`;
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || typeof value === 'number' || value === null;
}

export function classifyMessage(message: unknown): ClassifiedMessage {
  if (!isJsonObject(message) || message.jsonrpc !== '2.0') return { kind: 'invalid', message };
  const { method, id } = message;
  if (typeof method === 'string') {
    const params = isJsonObject(message.params) ? message.params : undefined;
    const meta = params && isJsonObject(params._meta) ? params._meta : undefined;
    const name = typeof params?.name === 'string' ? params.name : undefined;
    const uri = typeof params?.uri === 'string' ? params.uri : undefined;
    // One object, its optional fields only when present (every POST is classified: no spread of a second one).
    let c: { -readonly [K in keyof ClassifiedMessage]: ClassifiedMessage[K] };
    if (!('id' in message)) c = { kind: 'notification', method, message };
    else if (!isId(id) || id === null) return { kind: 'invalid', message };
    else c = { kind: 'request', id, method, message };
    if (name !== undefined) c.name = name;
    if (uri !== undefined) c.uri = uri;
    if (meta && META_PROTOCOL_VERSION in meta) c.metaRevision = meta[META_PROTOCOL_VERSION];
    return c;
  }
  if ('result' in message || 'error' in message) {
    if (!isId(id)) return { kind: 'invalid', message };
    return { kind: 'response', id, isError: 'error' in message, message };
  }
  return { kind: 'invalid', message };
}

/** Classify a parsed body: a single message or a batch (array). An empty batch is invalid. */
export function classifyBody(parsed: unknown): ClassifiedBody {
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return { batch: true, messages: [{ kind: 'invalid', message: parsed }] };
    return { batch: true, messages: parsed.map(classifyMessage) };
  }
  return { batch: false, messages: [classifyMessage(parsed)] };
}

/** Methods whose results the retrofit engine rewrites. */
export const REWRITTEN_METHODS: ReadonlySet<string> = new Set(['tools/list', 'tools/call', 'tasks/result']);
