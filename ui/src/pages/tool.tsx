/**
 * One tool: its schema and extract settings, its outcome totals, the last failures (the text with each failing
 * pointer marked) and the last successes (the text beside the structuredContent it became).
 */
import { useEffect } from 'preact/hooks';
import { JsonBlock, When } from '../components/blocks.js';
import { HighlightedText } from '../components/highlighted-text.js';
import { Sparkline } from '../components/sparkline.js';
import { ErrorBox, Loading } from '../components/notices.js';
import { count, ms, title } from '../format.js';
import { useLive } from '../live.js';
import { href, seg } from '../route.js';
import { TOTALS, type Failure, type Success, type ToolDetail } from '../types.js';

function SampleMeta({ s, outcome }: { s: Failure | Success; outcome: string }) {
  return (
    <p class="sample-meta">
      <span class={outcome === 'success' ? 'ok' : 'bad'}>{outcome}</span> · format {s.format ?? 'none'} · mode {s.mode} · client revision {s.revision} · <When at={s.at} />
      {s.truncated && <span class="muted"> · text truncated</span>}
    </p>
  );
}

function Failures({ failures }: { failures: readonly Failure[] }) {
  if (failures.length === 0) return <p class="muted">No failures kept.</p>;
  return (
    <ol class="samples">
      {failures.map((f, k) => (
        <li key={`${f.at}-${k}`} class="failure">
          <SampleMeta s={f} outcome={f.outcome} />
          {f.text === null ? (
            <ul class="reasons">
              {f.reasons.map((r, j) => (
                <li key={j}>
                  {r.pointer !== null && <code class="pointer">{r.pointer === '' ? '(root)' : r.pointer} </code>}
                  {r.message}
                </li>
              ))}
            </ul>
          ) : (
            <HighlightedText text={f.text} reasons={f.reasons} label={`Text of failure ${k + 1}`} />
          )}
        </li>
      ))}
    </ol>
  );
}

function Successes({ successes }: { successes: readonly Success[] }) {
  if (successes.length === 0) return <p class="muted">No successes kept.</p>;
  return (
    <ol class="samples">
      {successes.map((s, k) => (
        <li key={`${s.at}-${k}`} class="success">
          <SampleMeta s={s} outcome="success" />
          <div class="side">
            <section aria-label={`Text of success ${k + 1}`}>
              <h3 class="sub">Text</h3>
              <pre class="code" tabIndex={0}>
                {s.text ?? '(the text was not kept)'}
              </pre>
            </section>
            <section aria-label={`structuredContent of success ${k + 1}`}>
              <h3 class="sub">structuredContent</h3>
              <JsonBlock value={s.structuredContent} label={`structuredContent of success ${k + 1}`} />
            </section>
          </div>
        </li>
      ))}
    </ol>
  );
}

function Summary({ t }: { t: ToolDetail }) {
  return (
    <dl class="facts">
      <div>
        <dt>Schema</dt>
        <dd>{t.schema}</dd>
      </div>
      <div>
        <dt>Mode</dt>
        <dd>{t.mode}</dd>
      </div>
      {TOTALS.map((o) => (
        <div key={o}>
          <dt>{o === 'native' ? 'validated (native)' : o}</dt>
          <dd data-outcome={o}>{count(t.totals[o])}</dd>
        </div>
      ))}
      <div>
        <dt>Added p50 / p95</dt>
        <dd>{t.addedMs === null ? '—' : `${ms(t.addedMs.p50)} / ${ms(t.addedMs.p95)} (${count(t.addedMs.count)} call${t.addedMs.count === 1 ? '' : 's'})`}</dd>
      </div>
      <div>
        <dt>Last hour</dt>
        <dd>
          <Sparkline series={t.series} />
        </dd>
      </div>
    </dl>
  );
}

export function ToolPage({ upstream, tool }: { upstream: string; tool: string }) {
  useEffect(() => title(`${tool} of ${upstream}`), [upstream, tool]);
  const { data, error, loading } = useLive<ToolDetail>(`upstreams/${seg(upstream)}/tools/${seg(tool)}`);
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={href.upstreams()}>Upstreams</a> / <a href={href.tools(upstream)}>{upstream}</a> / <span aria-current="page">{tool}</span>
      </nav>
      <h1 tabIndex={-1}>
        <span class="name">{tool}</span>
      </h1>
      {error && <ErrorBox error={error} />}
      {loading && !data && <Loading what="the tool" />}
      {data && (
        <>
          <Summary t={data} />
          <div class="side">
            <section aria-labelledby="schema-title">
              <h2 id="schema-title">Output schema</h2>
              {data.outputSchema === null ? <p class="muted">None.</p> : <JsonBlock value={data.outputSchema} label="Output schema" />}
            </section>
            <section aria-labelledby="extract-title">
              <h2 id="extract-title">Extract settings</h2>
              {data.extract === null ? <p class="muted">None (the text is read as the schema says).</p> : <JsonBlock value={data.extract} label="Extract settings" />}
            </section>
          </div>
          <section aria-labelledby="failures-title">
            <h2 id="failures-title">Last failures ({count(data.failures.length)})</h2>
            <Failures failures={data.failures} />
          </section>
          <section aria-labelledby="successes-title">
            <h2 id="successes-title">Last successes ({count(data.successes.length)})</h2>
            <Successes successes={data.successes} />
          </section>
        </>
      )}
    </>
  );
}
