/**
 * The connector to Streamable HTTP upstreams: one keep-alive undici Pool per upstream origin. A request's
 * timeout covers the wait for response headers only; bodies (long-lived SSE streams) have no timeout.
 */
import { Pool, type Dispatcher } from 'undici';
import type { Cancel } from './cancel.js';
import { exchange, type UpstreamAnswer } from './exchange.js';

/** One forwarded exchange. */
export interface UpstreamRequest {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /** Path + query on the upstream. */
  readonly path: string;
  readonly headers: Record<string, string | string[]>;
  readonly body?: Buffer | undefined;
  readonly signal?: AbortSignal;
  /** Overrides the upstream's timeoutMs (health probes use a shorter bound). */
  readonly headersTimeoutMs?: number;
}

/** Pools by origin, shared by every upstream on that origin. */
export class UpstreamPools {
  readonly #pools = new Map<string, Pool>();

  pool(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      // No connection cap: each long-lived GET or listen stream holds a connection, and a cap would queue
      // ordinary POSTs behind them.
      pool = new Pool(origin, { keepAliveTimeout: 10_000 });
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  /** Close every pool: waits for in-flight requests, then destroys whatever is left after `graceMs`. */
  async close(graceMs = 1_000): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(
      pools.map(async (pool) => {
        const timer = setTimeout(() => void pool.destroy().catch(() => {}), graceMs);
        try {
          await pool.close();
        } catch {
          // already destroyed
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }
}

/** A Streamable HTTP upstream as the proxy sees it: where it is (fixed at start) and its connection pool. */
export class HttpUpstream {
  readonly url: URL;
  /** `host[:port]` for the Host header (read once: URL's getters build their strings on every read). */
  readonly host: string;
  readonly #pool: Pool;
  /** The url's path, without a trailing slash, and its own query (no `?`): mapPath runs on every request. */
  readonly #base: string;
  readonly #query: string;
  /** mapPath('', ''): the usual MCP request. */
  readonly #plain: string;

  constructor(url: string, pools: UpstreamPools) {
    this.url = new URL(url);
    this.host = this.url.host;
    this.#pool = pools.pool(this.url.origin);
    this.#base = this.url.pathname.replace(/\/$/, '');
    this.#query = this.url.search.replace(/^\?/, '');
    this.#plain = this.#query ? `${this.url.pathname}?${this.#query}` : this.url.pathname;
  }

  /**
   * Map a client path under the route (`suffix` after the upstream's `path`) and its query to the upstream.
   * The upstream url's own query comes first when both have one.
   */
  mapPath(suffix: string, query: string): string {
    if (suffix === '' && query === '') return this.#plain;
    const path = suffix === '' ? this.url.pathname : `${this.#base}${suffix}`;
    const q = this.#query && query ? `${this.#query}&${query}` : this.#query || query;
    return q ? `${path}?${q}` : path;
  }

  /** The proxy's exchange: the body as a plain async iterable, cancelled by `cancel` (see exchange.ts). */
  exchange(req: Omit<UpstreamRequest, 'signal'>, cancel: Cancel | undefined, timeoutMs: number): Promise<UpstreamAnswer> {
    const options: Dispatcher.DispatchOptions = {
      method: req.method,
      path: req.path,
      headers: req.headers,
      body: req.body ?? null,
      headersTimeout: req.headersTimeoutMs ?? timeoutMs,
      bodyTimeout: 0,
    };
    return exchange(this.#pool, options, cancel);
  }

  /** A request with a stream body (probes and readiness checks). */
  request(req: UpstreamRequest & { readonly headersTimeoutMs: number }): Promise<Dispatcher.ResponseData> {
    return this.#pool.request({
      method: req.method,
      path: req.path,
      headers: req.headers,
      body: req.body ?? null,
      signal: req.signal ?? null,
      headersTimeout: req.headersTimeoutMs,
      bodyTimeout: 0,
    });
  }
}
