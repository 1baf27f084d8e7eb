import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const RUN = join(import.meta.dirname, '..', '..', '..', 'bench', 'run.js');

describe('bench/run.js arguments', () => {
  it('rejects an unknown flag with its usage and exit code 2, before starting anything', () => {
    const result = spawnSync(process.execPath, [RUN, '--quik'], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage: node bench/run.js [--quick] [--only=1,2,3,4,5,6,7,8,9,10] [--profile] [--compare=DIR]');
    expect(result.stderr).toContain('unknown: --quik');
  });

  it('runs nothing and exits 0 for a scenario list that selects none', () => {
    const result = spawnSync(process.execPath, [RUN, '--quick', '--only=0'], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/cores: \d+ .*Node v\d+/);
    expect(result.stdout).toContain('| scenario | baseline | mcp-retrofit | ratio | target | met? |');
  });
});
