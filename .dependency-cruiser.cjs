/**
 * The house rules of src/ (STYLE: "a folder never imports a folder above it; no cycles"), checked by
 * `npm run deps` as part of `npm test`. LAYERS runs from the bottom up: a module may import its own folder
 * and the folders listed before it, never one listed after it. Top-level files (app.ts, cli.ts, log.ts, …)
 * sit where they are listed too.
 */
const LAYERS = [
  ['json', 'json-literals', 'exact-number', 'errors', 'log', 'metrics', 'hint', 'version', 'tool-name'],
  ['protocol'],
  ['stream'],
  ['telemetry'],
  ['jsonrpc'],
  ['retrofit'],
  ['policy'],
  ['config'],
  ['record', 'infer'],
  ['pipeline'],
  ['upstream'],
  ['session'],
  ['console'],
  ['http'],
  ['reload'],
  ['probe'],
  ['app'],
  ['cli', 'demo'],
];

/** `src/<name>/…` or `src/<name>.ts`. */
const path = (name) => `^src/(${name}/|${name}\\.ts$)`;

const upward = LAYERS.flatMap((layer, rank) => {
  const above = LAYERS.slice(rank + 1).flat();
  if (above.length === 0) return [];
  return layer.map((name) => ({
    name: `${name}-imports-above`,
    comment: `${name} sits below ${above.join(', ')} and must not import them`,
    severity: 'error',
    from: { path: path(name) },
    to: { path: above.map(path).join('|') },
  }));
});

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'no import cycles between modules', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'unlisted-folder',
      comment: 'every folder of src/ has a place in .dependency-cruiser.cjs LAYERS',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.flat().map(path).join('|') },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
