/**
 * The fault suite's report: per kind, how many sessions ran, passed, failed and were skipped, the leak and
 * RSS checks, and which invariants broke; then each failure with its session's seed, target, the invariant
 * and the symptom, and the one-line command that replays it.
 */
import { KINDS, type FaultKind } from './kinds.js';
import type { Failure, Tally, TallyKey } from './runner.js';

/** The command that replays one session (its seed, its kind, and the targets the run was narrowed to). */
export function replayCommand(failure: Failure, env: NodeJS.ProcessEnv = process.env): string {
  const targets = env.FAULT_TARGETS ? ` FAULT_TARGETS=${env.FAULT_TARGETS}` : '';
  return `FAULT_SEED=${failure.seed} FAULT_KINDS=${failure.kind}${targets} FAULT_SESSIONS=1 npm run faults`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function broken(t: Tally): string {
  const parts = Object.entries(t.byInvariant).map(([inv, n]) => `${inv}×${n}`);
  return parts.length === 0 ? '-' : parts.join(' ');
}

/** One line per failure, then its replay command (indented). */
export function describeFailure(f: Failure): string {
  const where = f.target ? ` on ${f.target}` : '';
  const seed = f.invariant === 'rss' || f.invariant === 'peak-rss' ? 'the run' : `seed ${f.seed}`;
  const detail = f.detail.split('\n').join('\n      ');
  const notes = f.context ?? [];
  const context = notes.slice(0, 3).map((n) => `\n    note: ${n.slice(0, 300)}`).join('') + (notes.length > 3 ? `\n    note: … ${notes.length - 3} more` : '');
  return `  [${f.kind}] ${seed}${where} — ${f.invariant}: ${detail}${context}\n    replay: ${f.replay ?? replayCommand(f)}`;
}

export function formatReport(tallies: ReadonlyMap<TallyKey, Tally>, header: string): string {
  const lines = [header, ''];
  lines.push(`${pad('kind', 18)}${pad('sessions', 10)}${pad('passed', 8)}${pad('failed', 8)}${pad('skipped', 9)}${pad('leak ok', 9)}${pad('memory ok', 11)}${pad('peak MB', 9)}broken invariants`);
  let total = 0;
  for (const [kind, t] of tallies) {
    total += t.run;
    lines.push(
      `${pad(kind, 18)}${pad(String(t.run), 10)}${pad(String(t.passed), 8)}${pad(String(t.failed), 8)}${pad(String(t.skipped), 9)}` +
        `${pad(`${t.leakChecks - t.leakFailures}/${t.leakChecks}`, 9)}${pad(`${t.memoryChecks - t.memoryFailures}/${t.memoryChecks}`, 11)}${pad(t.peak > 0 ? (t.peak / 2 ** 20).toFixed(0) : '-', 9)}${broken(t)}`,
    );
  }
  lines.push(`${total} sessions run`);
  const failures = [...tallies.values()].flatMap((t) => t.failures);
  if (failures.length > 0) lines.push('', 'failures:', ...failures.map(describeFailure));
  return lines.join('\n');
}

/** What each kind injects (printed once at the top of a run). */
export function describeKinds(kinds: readonly FaultKind[]): string {
  return kinds.map((k) => `  ${pad(k, 18)}${KINDS[k].summary} [${KINDS[k].targets.join(', ')}]`).join('\n');
}
