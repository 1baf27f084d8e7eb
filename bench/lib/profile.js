/** Summarise a V8 .cpuprofile: top functions by self time. */
import { readFileSync } from 'node:fs';

/** The `top` functions by self time, as { fn, where, ms, pct }. */
export function topSelf(file, top = 15) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    const f = node.callFrame;
    const url = f.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
    const key = `${f.functionName || '(anonymous)'}\u0000${url ? `${url}:${f.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => {
      const [fn, where] = key.split('\u0000');
      return { fn, where, ms: us / 1000, pct: (100 * us) / total };
    });
}

/** Self time grouped by where the code lives (dist/ file, package, node internals), busy samples only. */
export function byArea(file, top = 12) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const areas = new Map();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const f = node?.callFrame;
    if (!f || f.functionName === '(idle)') continue;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    const url = f.url;
    const area = url.includes('/node_modules/')
      ? url.replace(/^.*\/node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
      : url.includes('/dist/')
        ? url.replace(/^.*\/dist\//, 'dist/')
        : url.startsWith('node:')
          ? url.replace(/^(node:internal\/[^/]+|node:[^/]+).*$/, '$1')
          : f.functionName.startsWith('(') ? f.functionName : `native ${f.functionName}`;
    areas.set(area, (areas.get(area) ?? 0) + dt);
  }
  return {
    busyMs: busy / 1000,
    areas: [...areas.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([area, us]) => ({ area, ms: us / 1000, pct: (100 * us) / busy })),
  };
}

/**
 * Inclusive time by area: for each busy sample, every area (package or dist/ file) on its stack is charged
 * once. Shows e.g. how much of the request path is spent under pino or prom-client, whoever called them.
 */
export function inclusiveByArea(file, top = 15) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const areaOf = (url) =>
    url.includes('/node_modules/') ? url.replace(/^.*\/node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1') : url.includes('/dist/') ? url.replace(/^.*\/dist\//, 'dist/') : undefined;
  const totals = new Map();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = byId.get(profile.samples[i]);
    if (!leaf || leaf.callFrame.functionName === '(idle)') continue;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const area = areaOf(byId.get(id).callFrame.url);
      if (area && !seen.has(area)) {
        seen.add(area);
        totals.set(area, (totals.get(area) ?? 0) + dt);
      }
    }
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([area, us]) => ({ area, ms: us / 1000, pct: (100 * us) / busy }));
}
