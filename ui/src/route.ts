/**
 * Hash routes (docs/console.md): `#/`, `#/u/<upstream>`, `#/u/<upstream>/t/<tool>`, `#/learn/<upstream>`,
 * `#/sessions`; names are encodeURIComponent-encoded.
 */
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { readonly page: 'upstreams' }
  | { readonly page: 'tools'; readonly upstream: string }
  | { readonly page: 'tool'; readonly upstream: string; readonly tool: string }
  | { readonly page: 'learn'; readonly upstream: string }
  | { readonly page: 'sessions' }
  | { readonly page: 'unknown'; readonly hash: string };

function decode(part: string | undefined): string | null {
  if (part === undefined || part === '') return null;
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '' || path === '/') return { page: 'upstreams' };
  if (path === '/sessions') return { page: 'sessions' };
  const parts = path.split('/').slice(1);
  const [head, a, t, b] = parts;
  const upstream = decode(a);
  if (head === 'u' && upstream !== null) {
    if (parts.length === 2) return { page: 'tools', upstream };
    const tool = decode(b);
    if (parts.length === 4 && t === 't' && tool !== null) return { page: 'tool', upstream, tool };
  }
  if (head === 'learn' && upstream !== null && parts.length === 2) return { page: 'learn', upstream };
  return { page: 'unknown', hash };
}

/** `encodeURIComponent` for one API path segment. */
export const seg = encodeURIComponent;

/** The href of a route. */
export const href = {
  upstreams: (): string => '#/',
  tools: (upstream: string): string => `#/u/${encodeURIComponent(upstream)}`,
  tool: (upstream: string, tool: string): string => `#/u/${encodeURIComponent(upstream)}/t/${encodeURIComponent(tool)}`,
  learn: (upstream: string): string => `#/learn/${encodeURIComponent(upstream)}`,
  sessions: (): string => '#/sessions',
};

/** The current route, following hashchange. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
