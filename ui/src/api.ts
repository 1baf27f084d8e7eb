/**
 * Calls to the console's JSON API (/ui/api/). The gateway's bearer token, when it has one, is asked for once
 * (on the first 401) and kept in sessionStorage; every call sends it. Errors carry the gateway's
 * `RETROFIT_ERR_*` code and message so a page can show them as they are.
 */

const TOKEN_KEY = 'mcp-retrofit.token';
const BASE = new URL('api/', new URL('.', document.baseURI)).pathname;

/** An API call that did not answer 2xx. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly problems: readonly string[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type AuthListener = (needed: boolean) => void;
const authListeners = new Set<AuthListener>();

/** Called with true when a call got 401 (the page must ask for a token), false when a token was set. */
export function onAuth(listener: AuthListener): () => void {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

export function token(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(value: string): void {
  sessionStorage.setItem(TOKEN_KEY, value);
  for (const l of authListeners) l(false);
}

/** The URL of an API path (`upstreams`, `learn/x/apply`…). */
export function apiUrl(path: string): string {
  return BASE + path;
}

/** The headers every call sends. */
export function authHeaders(): Record<string, string> {
  const t = token();
  return t === null || t === '' ? {} : { authorization: `Bearer ${t}` };
}

/** Throws the ApiError for a non-2xx response (and tells the page when a token is needed). */
export async function failure(res: Response): Promise<ApiError> {
  if (res.status === 401) for (const l of authListeners) l(true);
  let code: string | null = null;
  let message = `${res.status} ${res.statusText}`;
  let problems: string[] = [];
  try {
    const body = (await res.json()) as { error?: { message?: string; data?: { code?: string; problems?: string[] } } };
    if (typeof body.error?.message === 'string') message = body.error.message;
    code = body.error?.data?.code ?? null;
    if (Array.isArray(body.error?.data?.problems)) problems = body.error.data.problems;
  } catch {
    // Not JSON: the status line says enough.
  }
  return new ApiError(res.status, code, message, problems);
}

/** GET an API path and read its JSON. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(apiUrl(path), { headers: { accept: 'application/json', ...authHeaders() }, ...(signal && { signal }) });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** POST JSON to an API path with the CSRF token from the overview. */
export async function postJson<T>(path: string, body: unknown, csrf: string): Promise<T> {
  const res = await fetch(apiUrl(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-retrofit-csrf': csrf, ...authHeaders() },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

