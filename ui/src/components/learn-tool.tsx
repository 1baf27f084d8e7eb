/**
 * One tool on the Learn page: what infer proposes (or why nothing), its confidence and samples, the diff
 * against the running config, the trial against every recorded sample, and its "apply" when write is on.
 */
import { count } from '../format.js';
import type { LearnTool } from '../types.js';
import { DiffBlock, JsonBlock } from './blocks.js';

export interface ApplyControl {
  readonly busy: boolean;
  readonly apply: (tools: readonly string[]) => void;
}

function Trial({ trial }: { trial: LearnTool['trial'] }) {
  if (trial === null) return <p class="muted">No trial (no proposal).</p>;
  return (
    <>
      <p>
        <span class={trial.failed === 0 ? 'ok' : 'bad'}>
          {count(trial.passed)} passed, {count(trial.failed)} failed
        </span>{' '}
        against the recorded samples.
      </p>
      {trial.failures.length > 0 && (
        <ul class="reasons">
          {trial.failures.map((f) => (
            <li key={f.sample}>
              <code>{f.sample}</code>: {f.reasons.join('; ')}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function LearnToolCard({ t, control }: { t: LearnTool; control: ApplyControl | null }) {
  const id = `learn-${t.tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <article class="card" aria-labelledby={id} data-tool={t.tool}>
      <h2 id={id}>
        <span class="name">{t.tool}</span>
      </h2>
      <p>
        {count(t.samples)} sample{t.samples === 1 ? '' : 's'} · confidence <strong class={`confidence-${t.confidence ?? 'none'}`}>{t.confidence ?? 'none'}</strong>
      </p>
      {t.proposal === null ? (
        <p class="muted">No proposal{t.reason !== null && `: ${t.reason}`}</p>
      ) : (
        <>
          <div class="side">
            <section aria-label={`Proposal for ${t.tool}`}>
              <h3>Proposal</h3>
              <JsonBlock value={t.proposal} label={`Proposal for ${t.tool}`} />
            </section>
            <section aria-label={`Diff for ${t.tool}`}>
              <h3>Diff against the running config</h3>
              <DiffBlock diff={t.diff} label={`Diff for ${t.tool}`} />
            </section>
          </div>
          <h3>Trial</h3>
          <Trial trial={t.trial} />
          {control && (
            <button type="button" class="primary" disabled={control.busy} onClick={() => control.apply([t.tool])}>
              Apply {t.tool}
            </button>
          )}
        </>
      )}
      {t.sampleFiles.length > 0 && (
        <details>
          <summary>Recorded samples ({count(t.sampleFiles.length)})</summary>
          <ul class="files">
            {t.sampleFiles.map((f) => (
              <li key={f}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </article>
  );
}
