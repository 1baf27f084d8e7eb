/**
 * The upstreams: kind, target, the revision each answered, bridged and open sessions, stdio children, errors
 * by kind, readiness, tools seen and typed; each links to its tools and, when it records, to Learn.
 */
import { useEffect } from 'preact/hooks';
import { ErrorBox, Loading } from '../components/notices.js';
import { count, title } from '../format.js';
import { useLive } from '../live.js';
import { href } from '../route.js';
import type { Upstream, UpstreamsReply } from '../types.js';

function Errors({ errors }: { errors: Upstream['errors'] }) {
  const kinds = Object.entries(errors).filter(([, n]) => n > 0);
  if (kinds.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="inline">
      {kinds.map(([kind, n]) => (
        <li key={kind}>
          {kind}: {count(n)}
        </li>
      ))}
    </ul>
  );
}

function Row({ u }: { u: Upstream }) {
  return (
    <tr>
      <th scope="row">
        <a href={href.tools(u.name)}>{u.name}</a>
        {u.recording && (
          <>
            {' '}
            <a class="tag" href={href.learn(u.name)} aria-label={`Learn for ${u.name}`}>
              Learn
            </a>
          </>
        )}
      </th>
      <td>{u.kind}</td>
      <td>
        <code>{u.path}</code>
      </td>
      <td class="target">
        <code>{u.target}</code>
      </td>
      <td>{u.revision ?? <span class="muted">not yet</span>}</td>
      <td class="num">{count(u.bridged)}</td>
      <td class="num">{count(u.sessions)}</td>
      <td class="num">{u.children === null ? <span class="muted">—</span> : count(u.children)}</td>
      <td>
        <Errors errors={u.errors} />
      </td>
      <td>
        <span class={u.ready.ok ? 'ok' : 'bad'}>{u.ready.ok ? 'ready' : 'not ready'}</span>
        {u.ready.detail !== null && u.ready.detail !== '' && <span class="detail"> {u.ready.detail}</span>}
      </td>
      <td class="num">
        {count(u.tools.typed)} / {count(u.tools.seen)}
      </td>
    </tr>
  );
}

export function UpstreamsPage() {
  useEffect(() => title('Upstreams'), []);
  const { data, error, loading } = useLive<UpstreamsReply>('upstreams');
  return (
    <>
      <h1 tabIndex={-1}>Upstreams</h1>
      {error && <ErrorBox error={error} />}
      {loading && !data && <Loading what="upstreams" />}
      {data && (
        <div class="scroll" tabIndex={0} role="region" aria-labelledby="upstreams-caption">
          <table>
            <caption id="upstreams-caption">
              {count(data.upstreams.length)} upstream{data.upstreams.length === 1 ? '' : 's'}; a name opens its tools
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Path</th>
                <th scope="col">Target</th>
                <th scope="col">Revision answered</th>
                <th scope="col" class="num">Bridged</th>
                <th scope="col" class="num">Sessions</th>
                <th scope="col" class="num">Children</th>
                <th scope="col">Errors</th>
                <th scope="col">Readiness</th>
                <th scope="col" class="num">Tools typed / seen</th>
              </tr>
            </thead>
            <tbody>
              {data.upstreams.map((u) => (
                <Row key={u.name} u={u} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
