/**
 * What a recording must not hold: the config's secrets (GatewayConfig.secrets, as the logs scrub them) and the
 * call's argument values, which a result often echoes ("Weather for <city>", a path, a query). Both are
 * replaced by REDACTED in every string of the result, keys included, with the logs' Redactor (so strings
 * shorter than 4 characters stay). A bare word, not the logs' `[Redacted]`: in a `city: Paris` report the
 * latter would read back as a YAML list and teach infer the wrong type. Argument names are kept; number and
 * boolean arguments are not searched for (scrubbing `1` from every number would ruin the sample).
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { Redactor } from '../log.js';

/** Every string inside an argument value (nested objects and arrays included). */
export function argumentStrings(args: Json | undefined, out: string[] = [], depth = 0): string[] {
  if (typeof args === 'string') out.push(args);
  else if (depth < 64 && Array.isArray(args)) for (const v of args) argumentStrings(v, out, depth + 1);
  else if (depth < 64 && isJsonObject(args)) for (const v of Object.values(args)) argumentStrings(v, out, depth + 1);
  return out;
}

/** The argument names of a call (top level), for the recording. */
export function argumentNames(args: Json | undefined): string[] {
  return isJsonObject(args) ? Object.keys(args) : [];
}

/** What a scrubbed string shows in place of a secret or an argument value. */
export const CENSOR = 'REDACTED';

function scrubValue(value: Json, redactor: Redactor): Json {
  if (typeof value === 'string') return redactor.scrub(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, redactor));
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    // defineProperty: a key may be `__proto__` (values parsed by the gateway have none, hand-made ones may).
    Object.defineProperty(out, redactor.scrub(key), { value: scrubValue(v, redactor), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A copy of `result` with every secret and every argument string replaced. Throws RangeError on values
 * nested deeper than the stack allows (the caller counts that sample as not written).
 */
export function scrubResult(result: JsonObject, secrets: readonly string[], args: Json | undefined): JsonObject {
  const redactor = new Redactor([...secrets, ...argumentStrings(args)], CENSOR);
  return redactor.size === 0 ? result : (scrubValue(result, redactor) as JsonObject);
}
