/**
 * Which answers are samples, and the CallToolResult inside raw bytes. Raw bytes may be a whole JSON-RPC
 * response (`{"jsonrpc":"2.0","id":…,"result":{…}}`) or the bare result; they are parsed with the gateway's
 * prototype-safe parser, in the recorder's drain loop, never in `offer`.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import { isNonFinal } from '../retrofit/result.js';
import { parseJson } from '../retrofit/safe-json.js';

/** True for a final, non-error CallToolResult: what `infer` can learn from. */
export function isSample(result: JsonObject): boolean {
  return !isNonFinal(result);
}

/** The CallToolResult in a parsed result or raw bytes; undefined for anything else (an error response, junk). */
export function resultOf(value: JsonObject | Buffer | string): JsonObject | undefined {
  if (typeof value !== 'string' && !Buffer.isBuffer(value)) return value;
  const parsed = parseJson(typeof value === 'string' ? value : value.toString('utf8'));
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const message = parsed.value;
  if (message.jsonrpc === '2.0') return isJsonObject(message.result) ? message.result : undefined;
  return message;
}
