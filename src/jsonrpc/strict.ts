/**
 * The strict reading of a client message a gateway-owned session applies before it goes to the upstream —
 * what the SDK servers' own transports refuse (their JSON-RPC schemas are strict), refused here with the
 * same answer (400, -32700 "invalid JSON-RPC message"), since behind the gateway the upstream would refuse it
 * silently and the client would wait forever: unknown top-level keys, ids that are not a string or an
 * integer, params that are not an object, and nesting deeper than any real message. The same bounds hold
 * the other way: an upstream's message nested too deeply is refused before anything recurses over it, and
 * an answer a strict client would drop is answered with an error (src/session/owned.ts).
 */
import { setImmediate } from 'node:timers/promises';
import { isJsonObject } from '../json.js';
import { isRevision } from '../protocol/era.js';
import { contentBlockProblem } from './content-blocks.js';
import type { ClassifiedMessage } from './classify.js';
import { bytesStringEnd, stringEnd } from './json-strings.js';

/** Deepest nesting of arrays and objects accepted in a message, from a client or from an upstream. */
export const MAX_DEPTH = 512;

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESPONSE_KEYS = new Set(['jsonrpc', 'id', 'result', 'error']);

// An integer past 2^53 cannot be read back exactly (JSON.parse rounds it), so no answer would ever match it.
const isId = (v: unknown): boolean => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

/** `params._meta`, when present, must be an object (the MCP schema's), as the SDK servers check. */
function metaProblem(params: unknown): string | undefined {
  return isJsonObject(params) && params._meta !== undefined && !isJsonObject(params._meta) ? 'params._meta must be an object' : undefined;
}

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
    if (!isId(message.id)) return 'a request id must be a string or an integer';
    if (message.params !== undefined && !isJsonObject(message.params)) return 'params must be an object';
    return metaProblem(message.params);
  } else if (m.kind === 'notification') {
    if (!onlyKeys(message, NOTIFICATION_KEYS)) return 'a notification has only jsonrpc, method and params';
    if (message.params !== undefined && !isJsonObject(message.params)) return 'params must be an object';
    return metaProblem(message.params);
  } else if (!onlyKeys(message, RESPONSE_KEYS) || ('result' in message && 'error' in message)) {
    return 'a response has a result or an error';
  } else if (!isId(message.id) && !(message.id === null && 'error' in message)) {
    // A client answers requests the upstream sent, whose ids are strings or integers (an error about a
    // request it could not read may say null, as JSON-RPC allows).
    return 'a response id must be a string or an integer';
  }
  return undefined;
}

/**
 * Why an upstream's answer to a request the gateway awaits is not a response a strict client takes (the SDK
 * clients' schemas: `jsonrpc: "2.0"`, a result object — its `_meta`, if any, an object with a string or integer
 * progressToken and a related task with a string taskId — or an error with an integer code and a string
 * message, never both, nothing else), or undefined when it is one. A client drops such a message and waits for ever:
 * a gateway-owned session answers the request with an error instead.
 */
export function responseProblem(message: Record<string, unknown>): string | undefined {
  if (message.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  const hasResult = 'result' in message;
  if (hasResult === 'error' in message) return hasResult ? 'a response has a result or an error, not both' : 'a response has a result or an error';
  if (!onlyKeys(message, RESPONSE_KEYS)) return 'a response has only jsonrpc, id and a result or an error';
  if (hasResult) return isJsonObject(message.result) ? resultMetaProblem(message.result._meta) : 'a result must be an object';
  const error = message.error;
  return isJsonObject(error) && Number.isInteger(error.code) && typeof error.message === 'string' ? undefined : 'an error has an integer code and a string message';
}

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A result's `_meta`, when present: an object whose progressToken and related task are what the SDK clients' schema says. */
function resultMetaProblem(meta: unknown): string | undefined {
  if (meta === undefined) return undefined;
  if (!isJsonObject(meta)) return "a result's _meta must be an object";
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && !Number.isInteger(token)) return 'a progressToken must be a string or an integer';
  const task = meta[RELATED_TASK];
  if (task !== undefined && !(isJsonObject(task) && typeof task.taskId === 'string')) return `${RELATED_TASK} has a string taskId`;
  return undefined;
}

/**
 * Why a tools/call result is not one the SDK clients' CallToolResult schema takes (they throw, and the call is
 * lost), or undefined: `isError`, if any, a boolean; `content`, if any, an array of objects each with a string
 * `type`, each a block the ContentBlock schema takes (./content-blocks.ts: one of its five types, with their
 * fields). structuredContent is left to the engine, whose era projection wraps or drops a value that is not an
 * object for the clients that need one (2026-07-28 clients take any value).
 * Runs on every answer to a tools/call: a few property reads and one pass over the blocks, nothing allocated.
 */
export function toolResultProblem(result: Record<string, unknown>): string | undefined {
  const { isError, content } = result;
  if (isError !== undefined && typeof isError !== 'boolean') return "a tool result's isError must be a boolean";
  if (content === undefined) return undefined;
  if (!Array.isArray(content)) return "a tool result's content must be an array";
  for (let i = 0; i < content.length; i++) {
    const block: unknown = content[i];
    if (!isJsonObject(block) || typeof block.type !== 'string') return "a tool result's content blocks must be objects with a string type";
    const problem = contentBlockProblem(block);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * responseProblem for the answer to a request of `method`; for tools/call what a strict client requires of its
 * result (toolResultProblem); for initialize likewise (the SDK clients' InitializeResult: a `protocolVersion` —
 * a revision, YYYY-MM-DD, the gateway negotiates with —, `capabilities`, and `serverInfo` with a string name
 * and version). Undefined when a strict client takes it.
 */
export function answerProblem(method: string, message: Record<string, unknown>): string | undefined {
  const problem = responseProblem(message);
  if (problem !== undefined || !isJsonObject(message.result)) return problem;
  if (method === 'tools/call') return toolResultProblem(message.result);
  if (method !== 'initialize') return undefined;
  const { protocolVersion, capabilities, serverInfo } = message.result;
  if (!isRevision(protocolVersion)) return 'an InitializeResult names its protocolVersion (YYYY-MM-DD)';
  if (!isJsonObject(capabilities)) return 'an InitializeResult has capabilities';
  if (!isJsonObject(serverInfo) || typeof serverInfo.name !== 'string' || typeof serverInfo.version !== 'string') return 'an InitializeResult has serverInfo with a name and a version';
  return undefined;
}

/**
 * True when the JSON text nests arrays/objects deeper than `limit`: one pass over the text, skipping
 * strings, so a hostile body is refused before anything recurses over it. JSON that deep takes two brackets
 * a level: a shorter text is not read at all (most messages). Text or its UTF-8 bytes (the brackets, quotes
 * and backslash are ASCII, and no byte of a multi-byte character is ASCII).
 */
export function nestedTooDeeply(text: string | Uint8Array, limit = MAX_DEPTH): boolean {
  if (text.length <= 2 * limit) return false;
  return typeof text === 'string' ? textTooDeep(text, limit) : bytesTooDeep(text, limit);
}

// One loop per representation (a reader closure made every character a call), and a string's contents
// skipped by a native search for its closing quote: most of a large answer is inside one string (a result's
// text), which is then crossed at memchr speed instead of a character at a time.

function textTooDeep(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i === -1) return false;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function bytesTooDeep(bytes: Uint8Array, limit: number): boolean {
  return new BytesDepth(bytes, limit).step(Infinity) ?? false;
}

/** Bytes a slice of nestedTooDeeplySliced reads before the event loop gets its turn (a millisecond or two). */
const SLICE_BYTES = 1 << 20;

/**
 * nestedTooDeeply, for data on the event loop: text and bytes up to SLICE_BYTES are read at once (the answer
 * is a boolean); more bytes are read SLICE_BYTES at a time with the loop's other work between slices (the
 * answer is a promise): the same answer, never one long task (a 22 MB answer took 15–40 ms in one piece,
 * other sessions waiting). `slice`: for tests.
 */
export function nestedTooDeeplyInSlices(data: string | Uint8Array, limit = MAX_DEPTH, slice = SLICE_BYTES): boolean | Promise<boolean> {
  if (typeof data === 'string' || data.length <= Math.max(slice, 2 * limit)) return nestedTooDeeply(data, limit);
  return sliced(new BytesDepth(data, limit), slice);
}

async function sliced(scan: BytesDepth, slice: number): Promise<boolean> {
  for (;;) {
    const found = scan.step(slice);
    if (found !== undefined) return found;
    await setImmediate();
  }
}

/** The depth check over UTF-8 bytes, able to stop after a budget of bytes and go on from there. */
class BytesDepth {
  readonly #bytes: Uint8Array;
  readonly #limit: number;
  #at = 0;
  #depth = 0;
  /** #at is inside a string (its opening quote read). */
  #inString = false;

  constructor(bytes: Uint8Array, limit: number) {
    this.#bytes = bytes;
    this.#limit = limit;
  }

  /** Read about `budget` more bytes: true or false once decided, undefined when there is more to read. */
  step(budget: number): boolean | undefined {
    const bytes = this.#bytes;
    const stop = Math.min(bytes.length, this.#at + budget);
    let i = this.#at;
    let depth = this.#depth;
    if (this.#inString) {
      i = bytesStringEnd(bytes, i, stop);
      if (i === -1) return false;
      if (i < 0) return this.#pause(~i, depth, true);
      i++;
    }
    for (; i < stop; i++) {
      const c = bytes[i]!;
      if (c === 0x22) {
        i = bytesStringEnd(bytes, i + 1, stop);
        if (i === -1) return false;
        if (i < 0) return this.#pause(~i, depth, true);
      } else if (c === 0x7b || c === 0x5b) {
        if (++depth > this.#limit) return true;
      } else if (c === 0x7d || c === 0x5d) depth--;
    }
    return i >= bytes.length ? false : this.#pause(i, depth, false);
  }

  #pause(at: number, depth: number, inString: boolean): undefined {
    this.#at = at;
    this.#depth = depth;
    this.#inString = inString;
    return undefined;
  }
}
