// Verdicts of a conformance run, read from the suite's result directories (one `checks.json` per scenario, in
// `<out>/[server-]<scenario>-<timestamp>/`), and the markdown table comparing the runs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const TIMESTAMP = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/** scenario → { passed, failed, warnings, failures: [check ids] } for one run's output directory. */
export function readVerdicts(out) {
  const verdicts = new Map();
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (!statSync(path).isDirectory()) continue;
      const checksFile = join(path, 'checks.json');
      if (!existsSync(checksFile)) {
        walk(path);
        continue;
      }
      const scenario = relative(out, path).replace(TIMESTAMP, '').replace(/^server-/, '');
      const checks = JSON.parse(readFileSync(checksFile, 'utf8'));
      const count = (status) => checks.filter((c) => c.status === status).length;
      const failures = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => c.id);
      verdicts.set(scenario, { passed: count('SUCCESS'), failed: count('FAILURE'), warnings: count('WARNING'), failures });
    }
  };
  walk(out);
  return verdicts;
}

/** A scenario's verdict: `pass`, `FAIL`, or `n/a` when it produced no check (the suite found it not applicable). */
function verdictOf(v) {
  if (v === undefined) return 'not run';
  if (v.passed + v.failed + v.warnings === 0) return 'n/a';
  return v.failed === 0 && v.warnings === 0 ? 'pass' : 'FAIL';
}

/** The verdict with its check counts. */
export function verdictText(v) {
  const verdict = verdictOf(v);
  if (v === undefined || verdict === 'n/a') return verdict === 'n/a' ? 'n/a (no checks)' : verdict;
  const extra = v.warnings > 0 ? `, ${v.warnings} warn` : '';
  return `${verdict} (${v.passed}/${v.passed + v.failed + v.warnings}${extra})`;
}

const ok = (v) => verdictOf(v) === 'pass';

/** Totals of one column: scenarios passed, and checks passed/failed/warned. */
export function totals(verdicts) {
  let scenarios = 0;
  let passed = 0;
  let failed = 0;
  let warnings = 0;
  for (const v of verdicts.values()) {
    if (ok(v)) scenarios++;
    passed += v.passed;
    failed += v.failed;
    warnings += v.warnings;
  }
  return `${scenarios}/${verdicts.size} scenarios passed; checks: ${passed} passed, ${failed} failed, ${warnings} warnings`;
}

/**
 * A markdown table of the scenarios whose verdicts differ between `columns` (name → verdict map; the first is
 * the reference), with the failing check ids of the differing runs; `all` lists every scenario.
 */
export function table(columns, { all = false } = {}) {
  const names = [...columns.keys()];
  const scenarios = [...new Set([...columns.values()].flatMap((m) => [...m.keys()]))].sort();
  const rows = scenarios.filter((s) => all || new Set([...columns.values()].map((m) => verdictOf(m.get(s)))).size > 1);
  if (rows.length === 0) return '_No verdict differs._\n';
  const lines = [`| scenario | ${names.join(' | ')} | failing checks |`, `|---|${names.map(() => '---|').join('')}---|`];
  for (const s of rows) {
    const cells = names.map((n) => verdictText(columns.get(n).get(s)));
    const failing = names.flatMap((n) => (columns.get(n).get(s)?.failures ?? []).map((id) => `${n}: ${id}`));
    lines.push(`| ${s} | ${cells.join(' | ')} | ${[...new Set(failing)].join('; ') || '–'} |`);
  }
  return `${lines.join('\n')}\n`;
}
