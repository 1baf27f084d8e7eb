/**
 * The probe's HTTP client: undici's dispatcher, as serving uses (src/upstream/http.ts), behind the `fetch`
 * shape the SDK's client transports take. The platform's `fetch` refuses the ports the Fetch standard calls
 * "bad" (6000, 6665–6669, 10080, …) that serving reaches without a word: a probe must not call an upstream
 * unreachable that the gateway serves. Every answer's body is bounded (`limits.maxResultBytes`, as serving
 * bounds an answer it must read): the SDK reads a JSON answer whole, so an endless one would grow the
 * command's memory until its deadline.
 */
import { Readable, Transform, pipeline } from 'node:stream';
import { request } from 'undici';
import { decodedBody, decodedCoding } from '../upstream/exchange.js';

type FetchInput = string | URL | Request;

function urlOf(input: FetchInput): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

/** An answer body past the probe's bound. */
export class ProbeAnswerTooLarge extends Error {
  constructor(url: string, max: number) {
    super(`the upstream's answer at ${url} is larger than limits.maxResultBytes (${max} bytes); the gateway would refuse it too`);
    this.name = 'ProbeAnswerTooLarge';
  }
}

/** `body`, failing with ProbeAnswerTooLarge once more than `max` bytes came (the upstream request is aborted). */
function bounded(body: Readable, max: number, url: string): Readable {
  let size = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > max) done(new ProbeAnswerTooLarge(url, max));
      else done(null, chunk);
    },
  });
  return pipeline(body, limit, () => {});
}

/** A `fetch` over undici's `request` (method, headers, a string or bytes body, the abort signal), answers bounded to `maxBytes`. */
export function probeFetch(maxBytes: number): (input: FetchInput, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body = typeof init.body === 'string' || init.body instanceof Uint8Array ? init.body : init.body == null ? undefined : String(init.body);
    const method = (init.method ?? 'GET').toUpperCase();
    const url = urlOf(input);
    const res = await request(url, { method: method as 'GET', headers, ...(body !== undefined && { body }), ...(init.signal && { signal: init.signal }) });
    const out = new Headers();
    // A body handed on decoded (upstream/exchange.ts) no longer has its coding or its length.
    const decoded = decodedCoding(res.headers) !== undefined;
    for (const [name, value] of Object.entries(res.headers)) {
      if (decoded && (name === 'content-encoding' || name === 'content-length')) continue;
      if (Array.isArray(value)) for (const v of value) out.append(name, v);
      else if (value !== undefined) out.set(name, value);
    }
    const empty = method === 'HEAD' || res.statusCode === 204 || res.statusCode === 205 || res.statusCode === 304;
    if (empty) await res.body.dump();
    return new Response(empty ? null : (Readable.toWeb(bounded(decodedBody(res.headers, res.body), maxBytes, url)) as ReadableStream<Uint8Array>), { status: res.statusCode, headers: out });
  };
}
