/**
 * The tools of one upstream: where each schema comes from, the mode, the outcome totals (as /metrics counts
 * them), the last hour as a small chart, and the time the retrofit adds. A filter narrows a long list; the
 * charts are drawn only for rows near the viewport.
 */
import { Component } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { SparkLegend, Sparkline } from '../components/sparkline.js';
import { ErrorBox, Loading } from '../components/notices.js';
import { count, ms, title } from '../format.js';
import { useLive } from '../live.js';
import { href, seg } from '../route.js';
import { SERIES, TOTALS, type ToolRow, type ToolsReply } from '../types.js';

/** Rows rendered at first: a table of a thousand rows costs the browser most of a second to lay out. */
const PAGE = 200;

const MODE_TEXT: Readonly<Record<ToolRow['mode'], string>> = { on: 'on', shadow: 'shadow', unseen: 'unseen' };

const sameSeries = (a: ToolRow['series'], b: ToolRow['series']): boolean => SERIES.every((s) => a[s].length === b[s].length && a[s].every((n, i) => n === b[s][i]));
const sameRow = (a: ToolRow, b: ToolRow): boolean =>
  a.schema === b.schema && a.mode === b.mode && TOTALS.every((o) => a.totals[o] === b.totals[o]) && a.addedMs?.p50 === b.addedMs?.p50 && a.addedMs?.p95 === b.addedMs?.p95 && sameSeries(a.series, b.series);

interface RowProps {
  readonly upstream: string;
  readonly t: ToolRow;
}

/** One tool's row; re-rendered only when its numbers changed, so a tick on a thousand tools diffs a few rows. */
class Row extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    return next.upstream !== this.props.upstream || !sameRow(next.t, this.props.t);
  }

  override render({ upstream, t }: RowProps) {
    return <RowCells upstream={upstream} t={t} />;
  }
}

function RowCells({ upstream, t }: RowProps) {
  return (
    <tr data-tool={t.name}>
      <th scope="row">
        <a href={href.tool(upstream, t.name)}>{t.name}</a>
      </th>
      <td>{t.schema}</td>
      <td>
        <span class={`mode mode-${t.mode}`}>{MODE_TEXT[t.mode]}</span>
      </td>
      <td class="num" data-outcome="native">{count(t.totals.native)}</td>
      <td class="num" data-outcome="extracted">{count(t.totals.extracted)}</td>
      <td class="num" data-outcome="invalid">{count(t.totals.invalid)}</td>
      <td class="num" data-outcome="unparseable">{count(t.totals.unparseable)}</td>
      <td class="num" data-outcome="shadow">{count(t.totals.shadow)}</td>
      <td>
        <Sparkline series={t.series} />
      </td>
      <td class="num">{t.addedMs === null ? <span class="muted">—</span> : `${ms(t.addedMs.p50)} / ${ms(t.addedMs.p95)}`}</td>
    </tr>
  );
}

export function ToolsPage({ upstream, recording }: { upstream: string; recording: boolean }) {
  useEffect(() => title(`Tools of ${upstream}`), [upstream]);
  const { data, error, loading } = useLive<ToolsReply>(`upstreams/${seg(upstream)}/tools`);
  const [filter, setFilter] = useState('');
  const [limit, setLimit] = useState(PAGE);
  useEffect(() => setLimit(PAGE), [upstream, filter]);
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (data?.tools ?? []).filter((t) => f === '' || t.name.toLowerCase().includes(f));
  }, [data, filter]);
  const shown = rows.length > limit ? rows.slice(0, limit) : rows;

  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={href.upstreams()}>Upstreams</a> / <span aria-current="page">{upstream}</span>
      </nav>
      <h1 tabIndex={-1}>
        Tools of <span class="name">{upstream}</span>
      </h1>
      {recording && (
        <p>
          This upstream records its results: <a href={href.learn(upstream)}>see what Learn proposes from them</a>.
        </p>
      )}
      {error && <ErrorBox error={error} />}
      {loading && !data && <Loading what="tools" />}
      {data && (
        <>
          <div class="toolbar">
            <label for="tool-filter">Filter tools</label>
            <input id="tool-filter" type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
            <SparkLegend />
          </div>
          <div class="scroll" tabIndex={0} role="region" aria-labelledby="tools-caption">
            <table class="tools">
              <caption id="tools-caption">
                {shown.length < rows.length ? `The first ${count(shown.length)} of ${count(rows.length)}` : count(rows.length)}
                {rows.length < data.tools.length ? ` matching tools (${count(data.tools.length)} in all)` : ' tools'}; outcome totals since the gateway started, chart of the last hour per minute
              </caption>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Schema</th>
                  <th scope="col">Mode</th>
                  <th scope="col" class="num">Validated</th>
                  <th scope="col" class="num">Extracted</th>
                  <th scope="col" class="num">Invalid</th>
                  <th scope="col" class="num">Unparseable</th>
                  <th scope="col" class="num">Shadow</th>
                  <th scope="col">Last hour</th>
                  <th scope="col" class="num">Added p50 / p95</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((t) => (
                  <Row key={t.name} upstream={upstream} t={t} />
                ))}
              </tbody>
            </table>
          </div>
          {shown.length < rows.length && (
            <p>
              <button type="button" onClick={() => setLimit((l) => l + PAGE * 5)}>
                Show {count(Math.min(PAGE * 5, rows.length - shown.length))} more tools
              </button>
            </p>
          )}
        </>
      )}
    </>
  );
}
