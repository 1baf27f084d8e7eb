/**
 * One client request a link to a 2026-07-28 upstream has in flight (./modern-link.ts): what it was, its
 * attempts (an `input_required` result sends it again with the client's input responses), and the number
 * literals a double cannot hold that the upstream must get as the client wrote them (src/json-literals.ts).
 */
import { trailOf, type LiteralTrail } from '../json-literals.js';
import type { JsonObject } from '../json.js';

/** One client request in flight upstream. */
export interface Call {
  readonly clientId: string | number;
  readonly message: JsonObject;
  /** The number literals a double cannot hold of the client's request text, as the upstream gets them too. */
  readonly literals: LiteralTrail | undefined;
  readonly abort: AbortController;
  /** The input requests the client has not answered yet, by the upstream's key. */
  readonly waiting: Set<string>;
  responses: JsonObject;
  /** The literals of each response's result, by the upstream's key (only those that hold one). */
  readonly responseLiterals: Map<string, LiteralTrail>;
  requestState: string | undefined;
  attempt: number;
  /** Its answer's messages while one of them is being reshaped on the worker, in order (see #fromCall). */
  reshaping?: Promise<void> | undefined;
}

/**
 * The literals of a call's request as the upstream gets it: the client's request's, and on a retry each input
 * response's under `params.inputResponses` (the gateway writes the request again from parsed values).
 */
export function requestTrail(call: Call): LiteralTrail | undefined {
  if (call.attempt === 0 || call.responseLiterals.size === 0) return call.literals;
  const params = call.literals?.children.get('params');
  const responses: LiteralTrail = { array: false, literals: new Map(), children: call.responseLiterals };
  const withResponses: LiteralTrail = { array: false, literals: params?.literals ?? new Map(), children: new Map([...(params?.children ?? []), ['inputResponses', responses]]) };
  return { array: false, literals: call.literals?.literals ?? new Map(), children: new Map([...(call.literals?.children ?? []), ['params', withResponses]]) };
}

/** A client request `message` (its text `json`) about to go upstream for the first time. */
export function newCall(clientId: string | number, message: JsonObject, json: string): Call {
  return { clientId, message, literals: trailOf(json), abort: new AbortController(), waiting: new Set(), responses: {}, responseLiterals: new Map(), requestState: undefined, attempt: 0 };
}
