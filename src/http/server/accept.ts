/**
 * Whether a request's `Accept` admits a media type, as content negotiation reads it (RFC 9110 §12.5.1: media
 * ranges, wildcards, `q=0` refusing one) — parsed by @fastify/accept-negotiator, never matched as a substring.
 * A request without Accept admits nothing here: an MCP client lists what it takes.
 */
import { Negotiator } from '@fastify/accept-negotiator';

/** One negotiator per media type: it caches the answers for the Accept values it has seen (bounded). */
const negotiators = new Map<string, Negotiator>();

/** Most Accept values remembered per media type (clients send a handful; anything more is computed again). */
const CACHE_MAX = 256;

/** A bounded cache for one negotiator. It stores null for a refusal, whatever its declared type says. */
class BoundedCache {
  readonly #map = new Map<string, string>();

  get(key: string): string | undefined {
    return this.#map.get(key);
  }

  has(key: string): boolean {
    return this.#map.has(key);
  }

  set(key: string, value: string): this {
    if (this.#map.size >= CACHE_MAX) this.#map.delete(this.#map.keys().next().value as string);
    this.#map.set(key, value);
    return this;
  }
}

/** True when `accept` admits every one of `types`. */
export function accepts(accept: string | undefined, ...types: string[]): boolean {
  if (accept === undefined) return false;
  for (const type of types) {
    let negotiator = negotiators.get(type);
    if (!negotiator) negotiators.set(type, (negotiator = new Negotiator({ supportedValues: [type], cache: new BoundedCache() })));
    if (negotiator.negotiate(accept) === null) return false;
  }
  return true;
}
