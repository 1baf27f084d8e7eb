/** The `ui:` block: defaults, values, and problems placed at FILE:LINE:COL like every other block. */
import { describe, expect, it } from 'vitest';
import { UI_DEFAULTS } from '../../../src/config/types.js';
import { mergeReload } from '../../../src/reload/merge.js';
import { load, problemsOf } from '../config/helpers.js';

const UPSTREAM = 'upstreams:\n  demo:\n    url: http://127.0.0.1:1/mcp\n';

describe('ui config', () => {
  it('is off by default, with every key filled in', async () => {
    const { loaded } = await load(UPSTREAM);
    expect(loaded.config.ui).toEqual(UI_DEFAULTS);
    expect(loaded.config.ui?.enabled).toBe(false);
  });

  it('takes the keys given', async () => {
    const { loaded } = await load(`ui:\n  enabled: true\n  write: true\n  samples: 5\n${UPSTREAM}`);
    expect(loaded.config.ui).toEqual({ enabled: true, write: true, remote: false, samples: 5, maxTextBytes: 16_384 });
  });

  it('places a bad value at its line and column', async () => {
    const { problems } = await problemsOf(`ui:\n  enabled: true\n  samples: 500\n  colour: red\n${UPSTREAM}`);
    const lines = problems.map((p) => `${p.line}:${p.col} ${p.message}`);
    expect(lines.some((l) => l.startsWith('3:12 ui.samples'))).toBe(true);
    expect(lines.some((l) => l.startsWith('4:3 ui: unknown key "colour"'))).toBe(true);
  });

  it('is decided at start: a reload keeps the running ui and says a restart is needed', async () => {
    const { loaded: running } = await load(`ui:\n  enabled: true\n${UPSTREAM}`);
    const { loaded: next } = await load(UPSTREAM);
    const merged = mergeReload(running, next);
    expect(merged.loaded.config.ui?.enabled).toBe(true);
    expect(merged.restartRequired).toContain('ui changed (running values kept)');
  });
});
