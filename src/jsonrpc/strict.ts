/**
 * The strict reading of a client message a gateway-owned session applies before it goes to the upstream —
 * what the SDK servers' own transports refuse (their JSON-RPC schemas are strict), refused here with the
 * same answer (400, -32700 "invalid JSON-RPC message"), since behind the gateway the upstream would refuse it
 * silently and the client would wait forever: unknown top-level keys, ids that are not a string or an
 * integer, params that are not an object, and nesting deeper than any real message.
 */
import { isJsonObject } from '../json.js';
import type { ClassifiedMessage } from './classify.js';

/** Deepest nesting of arrays and objects accepted in a client message. */
export const MAX_DEPTH = 512;

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESPONSE_KEYS = new Set(['jsonrpc', 'id', 'result', 'error']);

const isId = (v: unknown): boolean => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

function onlyKeys(message: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in message) if (!allowed.has(key)) return false;
  return true;
}

/** Why `m` is not a message a strict JSON-RPC reader takes, or undefined when it is. */
export function strictProblem(m: ClassifiedMessage): string | undefined {
  const message = m.message;
  if (m.kind === 'invalid' || !isJsonObject(message)) return 'not a JSON-RPC message';
  if (m.kind === 'request') {
    if (!onlyKeys(message, REQUEST_KEYS)) return 'a request has only jsonrpc, id, method and params';
    if (!isId(message.id)) return 'a request id is a string or an integer';
    if (message.params !== undefined && !isJsonObject(message.params)) return 'params is an object';
  } else if (m.kind === 'notification') {
    if (!onlyKeys(message, NOTIFICATION_KEYS)) return 'a notification has only jsonrpc, method and params';
    if (message.params !== undefined && !isJsonObject(message.params)) return 'params is an object';
  } else if (!onlyKeys(message, RESPONSE_KEYS) || ('result' in message && 'error' in message)) {
    return 'a response has a result or an error';
  }
  return undefined;
}

/**
 * True when the JSON text nests arrays/objects deeper than `limit`: one pass over the text, skipping
 * strings, so a hostile body is refused before anything recurses over it.
 */
export function nestedTooDeeply(text: string, limit = MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
