/**
 * OAuth through the gateway, the upstream side: requests to an upstream's own origin for its OAuth documents
 * and endpoints. The gateway never fetches another origin on an upstream's word: a path the upstream advertises
 * is fetched from the upstream's origin as configured.
 */
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import type { HttpUpstreamConfig, SseUpstreamConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';
import { advertisedMetadataPath, metadataCandidates } from './metadata.js';

/** The upstreams OAuth can protect: those the gateway reaches over HTTP. */
export type OAuthUpstream = HttpUpstreamConfig | SseUpstreamConfig;

/** Metadata documents are small; a larger answer is not one. */
export const MAX_METADATA_BYTES = 1024 * 1024;

/** The URL the gateway reaches the upstream at (its MCP endpoint, or its legacy SSE endpoint). */
export function upstreamUrlOf(upstream: OAuthUpstream): URL {
  return new URL(upstream.kind === 'http' ? upstream.url : upstream.sse);
}

/** One request to `path` (with its query) on the upstream's origin; redirects are the client's to follow. */
export function sendToUpstream(
  upstream: OAuthUpstream,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string | string[]>,
  body?: Buffer | string,
): Promise<Dispatcher.ResponseData> {
  // Concatenated, not resolved: a path starting with `//` must not name another host.
  const url = new URL(`${upstreamUrlOf(upstream).origin}${path}`);
  return request(url, { method, headers, body: body ?? null, headersTimeout: upstream.timeoutMs, bodyTimeout: upstream.timeoutMs });
}

/** The body as UTF-8 text, refusing more than `max` bytes. */
export async function readText(body: Readable, max: number, upstream: string): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream]);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

const PROBE_BODY = '{"jsonrpc":"2.0","id":"mcp-retrofit-oauth-probe","method":"ping"}';

/**
 * Ask the upstream where its metadata is, as a client would: an unauthenticated request to its endpoint, and
 * the `resource_metadata` of the challenge it answers with. Stateless on purpose, so every replica (and a
 * restarted gateway) finds a document kept at a custom location. The probe is a `ping` POST (a GET for legacy
 * SSE, whose stream is dropped unread), which no server takes as the start of a session.
 */
export async function probeMetadataPath(upstream: OAuthUpstream, headers: Record<string, string | string[]>): Promise<string | undefined> {
  const url = upstreamUrlOf(upstream);
  const target = `${url.pathname}${url.search}`;
  let res: Dispatcher.ResponseData;
  try {
    res =
      upstream.kind === 'http'
        ? await sendToUpstream(upstream, 'POST', target, { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, PROBE_BODY)
        : await sendToUpstream(upstream, 'GET', target, { ...headers, accept: 'text/event-stream' });
  } catch {
    // Unreachable now: the metadata requests that follow fail, and say so.
    return undefined;
  }
  // Never read: a legacy stream would not end. Destroying emits an abort error nobody needs to hear.
  res.body.on('error', () => {});
  res.body.destroy();
  if (res.statusCode !== 401 && res.statusCode !== 403) return undefined;
  const challenge = res.headers['www-authenticate'];
  for (const value of Array.isArray(challenge) ? challenge : challenge === undefined ? [] : [challenge]) {
    const path = advertisedMetadataPath(value, url.origin);
    if (path !== undefined) return path;
  }
  return undefined;
}

/**
 * The upstream's answer for its protected-resource metadata: from the first candidate location that is not a
 * 4xx (as a client moves on from a 404), else the last one's answer, whatever it is.
 */
export async function fetchMetadata(upstream: OAuthUpstream, headers: Record<string, string | string[]>): Promise<Dispatcher.ResponseData> {
  const url = upstreamUrlOf(upstream);
  const [first, ...rest] = metadataCandidates(url, await probeMetadataPath(upstream, { host: url.host, ...upstream.headers }));
  let res = await sendToUpstream(upstream, 'GET', first ?? '/.well-known/oauth-protected-resource', headers);
  for (const path of rest) {
    if (res.statusCode < 400 || res.statusCode >= 500) break;
    await res.body.dump();
    res = await sendToUpstream(upstream, 'GET', path, headers);
  }
  return res;
}
