/**
 * The probe's HTTP client: undici's dispatcher, as serving uses (src/upstream/http.ts), behind the `fetch`
 * shape the SDK's client transports take. The platform's `fetch` refuses the ports the Fetch standard calls
 * "bad" (6000, 6665–6669, 10080, …) that serving reaches without a word: a probe must not call an upstream
 * unreachable that the gateway serves.
 */
import { Readable } from 'node:stream';
import { request } from 'undici';

type FetchInput = string | URL | Request;

function urlOf(input: FetchInput): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

/** A `fetch` over undici's `request`: method, headers, a string or bytes body, the abort signal. */
export async function probeFetch(input: FetchInput, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  const body = typeof init.body === 'string' || init.body instanceof Uint8Array ? init.body : init.body == null ? undefined : String(init.body);
  const method = (init.method ?? 'GET').toUpperCase();
  const res = await request(urlOf(input), { method: method as 'GET', headers, ...(body !== undefined && { body }), ...(init.signal && { signal: init.signal }) });
  const out = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) out.append(name, v);
    else if (value !== undefined) out.set(name, value);
  }
  const empty = method === 'HEAD' || res.statusCode === 204 || res.statusCode === 205 || res.statusCode === 304;
  if (empty) await res.body.dump();
  return new Response(empty ? null : (Readable.toWeb(res.body) as ReadableStream<Uint8Array>), { status: res.statusCode, headers: out });
}
