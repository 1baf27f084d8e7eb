/**
 * Open sessions: how many by client revision, by client name and by profile, how many are bridged, and the
 * list (newest first; ids are cut to their first characters by the API).
 */
import { useEffect } from 'preact/hooks';
import { ErrorBox, Loading } from '../components/notices.js';
import { When } from '../components/blocks.js';
import { count, title } from '../format.js';
import { useLive } from '../live.js';
import { href } from '../route.js';
import type { SessionsReply } from '../types.js';

/** A two-column table of counts by a key (sessions by revision, by client, by profile). */
export function CountTable({ id, caption, keyName, counts }: { id: string; caption: string; keyName: string; counts: Readonly<Record<string, number>> }) {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return (
    <table id={id} class="counts">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{keyName}</th>
          <th scope="col" class="num">
            Sessions
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={2} class="muted">
              none
            </td>
          </tr>
        ) : (
          rows.map(([k, n]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td class="num">{count(n)}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

export function SessionsPage() {
  useEffect(() => title('Sessions'), []);
  const { data, error, loading } = useLive<SessionsReply>('sessions');
  return (
    <>
      <h1 tabIndex={-1}>Sessions</h1>
      {error && <ErrorBox error={error} />}
      {loading && !data && <Loading what="sessions" />}
      {data && (
        <>
          <p class="lead">
            <strong>{count(data.total)}</strong> open session{data.total === 1 ? '' : 's'}, <strong>{count(data.bridged)}</strong> bridged (the client's revision differs from
            the upstream's).
            {data.unlisted > 0 && ` ${count(data.unlisted)} more opened while 20,000 were held are not counted here.`}
          </p>
          <div class="grid">
            <CountTable id="by-revision" caption="By client revision" keyName="Revision" counts={data.byRevision} />
            <CountTable id="by-client" caption="By client name" keyName="Client" counts={data.byClient} />
            {Object.keys(data.byProfile).length > 0 && <CountTable id="by-profile" caption="By profile" keyName="Profile" counts={data.byProfile} />}
          </div>
          <div class="scroll" tabIndex={0} role="region" aria-labelledby="sessions-caption">
            <table>
              <caption id="sessions-caption">
                {data.sessions.length < data.total ? `The newest ${count(data.sessions.length)} of ${count(data.total)} sessions` : 'Every open session, newest first'}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col">Upstream</th>
                  <th scope="col">Client</th>
                  <th scope="col">Client revision</th>
                  <th scope="col">Upstream revision</th>
                  <th scope="col">Bridged</th>
                  <th scope="col">Profile</th>
                  <th scope="col">Opened</th>
                </tr>
              </thead>
              <tbody>
                {data.sessions.map((s) => (
                  <tr key={`${s.upstream}-${s.id}-${s.openedAt}`}>
                    <th scope="row">
                      <code>{s.id}</code>
                    </th>
                    <td>
                      <a href={href.tools(s.upstream)}>{s.upstream}</a>
                    </td>
                    <td>{s.client?.name == null ? <span class="muted">(unnamed)</span> : `${s.client.name} ${s.client.version ?? ''}`}</td>
                    <td>{s.revision ?? '—'}</td>
                    <td>{s.upstreamRevision ?? '—'}</td>
                    <td>{s.bridged ? 'yes' : 'no'}</td>
                    <td>{s.profile ?? <span class="muted">—</span>}</td>
                    <td>
                      <When at={s.openedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
