import { describe, expect, it } from 'vitest';
import { concernsConfig } from '../../../src/reload/watch.js';

describe('concernsConfig', () => {
  it('takes the config file, ConfigMap symlink swaps and unnamed events; ignores other files', () => {
    expect(concernsConfig('config.yaml', 'config.yaml')).toBe(true);
    expect(concernsConfig('..data', 'config.yaml')).toBe(true);
    expect(concernsConfig('..2026_11_30_16_00_00.123', 'config.yaml')).toBe(true);
    expect(concernsConfig(null, 'config.yaml')).toBe(true);
    expect(concernsConfig('schema.json', 'config.yaml')).toBe(false);
    expect(concernsConfig('.config.yaml.swp', 'config.yaml')).toBe(false);
  });
});
