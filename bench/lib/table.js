/**
 * The bench's one output: a markdown table of rows { scenario, baseline, ours, ratio, target, met }, plus the
 * machine's core count, Node version and load. `met` is true/false, or null when a row has no target.
 */
import { cpus, loadavg } from 'node:os';

/** Format a number for the table: 3 significant digits, thousands kept whole. */
export function fmt(n, unit = '') {
  if (n === undefined || n === null || Number.isNaN(n)) return 'n/a';
  if (!Number.isFinite(n)) return '∞';
  const abs = Math.abs(n);
  const s = abs >= 100 ? n.toFixed(0) : abs >= 10 ? n.toFixed(1) : abs >= 1 ? n.toFixed(2) : n.toFixed(3);
  return unit ? `${s} ${unit}` : s;
}

/** A ratio cell: `0.87×`. */
export function ratio(ours, baseline) {
  if (!Number.isFinite(ours) || !Number.isFinite(baseline) || baseline === 0) return NaN;
  return ours / baseline;
}

/** A row whose target is `ratio >= min` or `ratio <= max`. */
export function row(scenario, baseline, ours, r, target) {
  let met = null;
  if (target?.min !== undefined) met = Number.isFinite(r) ? r >= target.min : false;
  if (target?.max !== undefined) met = Number.isFinite(r) ? r <= target.max : false;
  const targetText = target ? (target.min !== undefined ? `≥ ${target.min}×` : `≤ ${target.max}×`) + (target.note ? ` ${target.note}` : '') : '—';
  return { scenario, baseline, ours, ratio: r, target: targetText, met };
}

/** A row for a scenario that could not run. */
export function skipped(scenario, reason) {
  return { scenario, baseline: `skipped: ${reason}`, ours: '', ratio: NaN, target: '—', met: null, skipped: true };
}

function cell(text) {
  return String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The whole markdown document. */
export function render(rows, { quick, startedAt, seconds }) {
  const cpu = cpus();
  const lines = [
    `# mcp-retrofit bench${quick ? ' (quick)' : ''}`,
    '',
    `- cores: ${cpu.length} (${cpu[0]?.model.trim() ?? 'unknown'}), Node ${process.version}, ${process.platform}/${process.arch}`,
    `- started ${startedAt.toISOString()}, took ${Math.round(seconds)} s; load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
    '- ratios are mcp-retrofit ÷ baseline, measured in the same run; absolute figures do not carry between machines',
    '',
    '| scenario | baseline | mcp-retrofit | ratio | target | met? |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const met = r.met === null ? '—' : r.met ? 'yes' : '**no**';
    const rt = Number.isFinite(r.ratio) ? `${fmt(r.ratio)}×` : r.skipped ? '' : 'n/a';
    lines.push(`| ${cell(r.scenario)} | ${cell(r.baseline)} | ${cell(r.ours)} | ${rt} | ${cell(r.target)} | ${met} |`);
  }
  return `${lines.join('\n')}\n`;
}
