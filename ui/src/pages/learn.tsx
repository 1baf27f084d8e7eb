/**
 * Learn: for a recording upstream, what `infer` proposes per tool, and the `tools:` block to copy. With
 * `ui.write` on (the overview says so) an "apply" writes the proposals into the config file; the POST carries
 * the overview's CSRF token, and hot reload then takes the file.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, postJson } from '../api.js';
import { CopyButton } from '../components/blocks.js';
import { LearnToolCard, type ApplyControl } from '../components/learn-tool.js';
import { ErrorBox, Loading } from '../components/notices.js';
import { count, title } from '../format.js';
import { useLive } from '../live.js';
import { href, seg } from '../route.js';
import type { ApplyReply, LearnReply, Overview } from '../types.js';

type Outcome = { readonly ok: ApplyReply } | { readonly error: Error } | null;

function Result({ outcome }: { outcome: Outcome }) {
  if (outcome === null) return null;
  if ('error' in outcome) return <ErrorBox error={outcome.error} />;
  const r = outcome.ok;
  const reload = r.reload;
  return (
    <div class={reload?.ok === false ? 'error' : 'done'}>
      <p>
        Applied {r.tools.join(', ')}: wrote <code>{r.written}</code> (previous file kept as <code>{r.backup}</code>). {reload === null ? 'Hot reload takes it (SIGHUP or --watch).' : reload.ok ? 'The gateway reloaded it.' : 'The reload failed; the gateway keeps the previous config:'}
      </p>
      {reload?.ok === false && (
        <ul>
          {reload.problems.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function LearnPage({ upstream, overview }: { upstream: string; overview: Overview | null }) {
  useEffect(() => title(`Learn for ${upstream}`), [upstream]);
  const { data, error, loading, refresh } = useLive<LearnReply>(`learn/${seg(upstream)}`);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const apply = (tools: readonly string[]): void => {
    if (overview === null) return;
    setBusy(true);
    setOutcome(null);
    postJson<ApplyReply>(`learn/${seg(upstream)}/apply`, { tools }, overview.csrf)
      .then(
        (ok) => setOutcome({ ok }),
        (e: unknown) => setOutcome({ error: e instanceof Error ? e : new ApiError(0, null, String(e)) }),
      )
      .finally(() => {
        setBusy(false);
        refresh();
      });
  };
  const control: ApplyControl | null = overview?.write === true && data?.write !== false ? { busy, apply } : null;
  const proposed = (data?.tools ?? []).filter((t) => t.proposal !== null).map((t) => t.tool);

  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={href.upstreams()}>Upstreams</a> / <a href={href.tools(upstream)}>{upstream}</a> / <span aria-current="page">Learn</span>
      </nav>
      <h1 tabIndex={-1}>
        Learn for <span class="name">{upstream}</span>
      </h1>
      {error && <ErrorBox error={error} />}
      {loading && !data && <Loading what="proposals" />}
      <div aria-live="polite">
        <Result outcome={outcome} />
      </div>
      {data && (
        <>
          <p class="lead">
            {count(data.results)} recorded result{data.results === 1 ? '' : 's'} in <code>{data.dir}</code>; {count(proposed.length)} of {count(data.tools.length)} tools
            have a proposal.
          </p>
          {data.problems.length > 0 && (
            <details>
              <summary>{count(data.problems.length)} recording files skipped</summary>
              <ul class="files">
                {data.problems.map((p) => (
                  <li key={p}>
                    <code>{p}</code>
                  </li>
                ))}
              </ul>
            </details>
          )}
          {control && proposed.length > 1 && (
            <p>
              <button type="button" class="primary" disabled={busy} onClick={() => apply(proposed)}>
                Apply all {count(proposed.length)} proposals
              </button>
            </p>
          )}
          {data.tools.map((t) => (
            <LearnToolCard key={t.tool} t={t} control={control} />
          ))}
          <section aria-labelledby="yaml-title">
            <h2 id="yaml-title">The tools: block</h2>
            <p>
              What <code>mcp-retrofit infer</code> prints for these recordings. <CopyButton text={data.yaml} label="Copy the YAML" />
            </p>
            <pre class="code" tabIndex={0} aria-label="The tools: block as YAML">
              {data.yaml}
            </pre>
          </section>
        </>
      )}
    </>
  );
}
