/**
 * The frame every page shares: a skip link, the banner with the navigation, the token prompt when the gateway
 * asks for one, and the page of the current route in <main>. Focus moves to the page's heading on navigation
 * so keyboard and screen-reader users land on the new page.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, onAuth } from './api.js';
import { TokenForm } from './components/notices.js';
import { LearnPage } from './pages/learn.js';
import { SessionsPage } from './pages/sessions.js';
import { ToolPage } from './pages/tool.js';
import { ToolsPage } from './pages/tools.js';
import { UpstreamsPage } from './pages/upstreams.js';
import { href, useRoute, type Route } from './route.js';
import type { Overview } from './types.js';

function useOverview(): Overview | null {
  const [overview, setOverview] = useState<Overview | null>(null);
  useEffect(() => {
    let stopped = false;
    const load = (): void => {
      getJson<Overview>('overview').then(
        (o) => !stopped && setOverview(o),
        () => undefined, // a page shows the same failure with its own call
      );
    };
    load();
    const off = onAuth((needed) => !needed && load());
    return () => {
      stopped = true;
      off();
    };
  }, []);
  return overview;
}

function Page({ route, overview }: { route: Route; overview: Overview | null }) {
  switch (route.page) {
    case 'upstreams':
      return <UpstreamsPage />;
    case 'tools':
      return <ToolsPage upstream={route.upstream} recording={overview?.recordingUpstreams.includes(route.upstream) ?? false} />;
    case 'tool':
      return <ToolPage upstream={route.upstream} tool={route.tool} />;
    case 'learn':
      return <LearnPage upstream={route.upstream} overview={overview} />;
    case 'sessions':
      return <SessionsPage />;
    default:
      return (
        <>
          <h1 tabIndex={-1}>Not found</h1>
          <p>
            No page at <code>{route.hash}</code>. <a href={href.upstreams()}>Go to the upstreams</a>.
          </p>
        </>
      );
  }
}

export function App() {
  const route = useRoute();
  const overview = useOverview();
  const [needToken, setNeedToken] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  useEffect(() => onAuth(setNeedToken), []);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = main.current?.querySelector<HTMLElement>('h1');
    (heading ?? main.current)?.focus();
  }, [route]);

  // "page" on the link of the page shown; "true" on Upstreams while one upstream's pages are shown.
  const current = (page: string): 'page' | 'true' | undefined =>
    route.page === page ? 'page' : page === 'upstreams' && (route.page === 'tools' || route.page === 'tool' || route.page === 'learn') ? 'true' : undefined;
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header class="banner">
        <a class="brand" href={href.upstreams()}>
          mcp-retrofit <span>console</span>
        </a>
        <nav aria-label="Main">
          <ul>
            <li>
              <a href={href.upstreams()} aria-current={current('upstreams')}>
                Upstreams
              </a>
            </li>
            <li>
              <a href={href.sessions()} aria-current={current('sessions')}>
                Sessions
              </a>
            </li>
          </ul>
        </nav>
        {overview && (
          <p class="meta">
            v{overview.version} · {overview.write ? 'write on' : 'read-only'}
          </p>
        )}
      </header>
      {needToken && <TokenForm />}
      <main id="main" ref={main} tabIndex={-1}>
        <Page route={route} overview={overview} />
      </main>
    </>
  );
}
