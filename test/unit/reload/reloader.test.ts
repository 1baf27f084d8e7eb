import { describe, expect, it } from 'vitest';
import { ConfigError, type LoadedConfig } from '../../../src/config/load.js';
import { createLogger, Redactor } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { Generations } from '../../../src/config/generations.js';
import { Reloader } from '../../../src/reload/reloader.js';
import { gatewayConfig, httpUpstream } from '../../helpers/config.js';
import { captureLogs } from '../../helpers/gateway.js';

function setup(load: () => Promise<LoadedConfig>) {
  const { lines, stream } = captureLogs();
  const redactor = new Redactor();
  const logger = createLogger({ level: 'info', destination: stream, redactor });
  const metrics = createMetrics({ defaultMetrics: false });
  const generations = new Generations(gatewayConfig([httpUpstream('web', 'http://a.test/mcp')]));
  const reloader = new Reloader({ file: '/cfg/config.yaml', generations, logger, metrics, redactor, load });
  return { lines, logger, metrics, generations, reloader };
}

describe('Reloader', () => {
  it('folds reload requests made while one runs into a single follow-up', async () => {
    let loads = 0;
    const { reloader, generations } = setup(async () => {
      loads += 1;
      return gatewayConfig([httpUpstream('web', 'http://a.test/mcp', { timeoutMs: loads })]);
    });
    const results = await Promise.all([reloader.reload('a'), reloader.reload('b'), reloader.reload('c')]);
    expect(loads).toBe(2);
    expect(results.map((r) => r.ok && r.generation)).toEqual([2, 3, 3]);
    expect(generations.current.config.upstreams.web?.timeoutMs).toBe(2);
  });

  it('scrubs the new generation’s secrets from the first line it could appear in', async () => {
    const { reloader, logger, lines } = setup(async () => gatewayConfig([httpUpstream('web', 'http://a.test/mcp')], { secrets: ['rotated-secret'] }));
    expect((await reloader.reload('SIGHUP')).ok).toBe(true);
    logger.info('token is rotated-secret');
    expect(lines.at(-1)?.msg).toBe('token is [Redacted]');
  });

  it('a failed load keeps the generation, counts the failure and logs each problem with its position', async () => {
    const problems = [
      { file: '/cfg/config.yaml', line: 3, col: 5, message: 'bad thing' },
      { file: '/cfg/schema.json', line: 1, col: 2, message: 'worse thing' },
    ];
    const { reloader, generations, lines, metrics } = setup(async () => {
      throw new ConfigError(problems);
    });
    const before = generations.current;
    const result = await reloader.reload('SIGHUP');
    expect(result).toEqual({ ok: false, problems: ['/cfg/config.yaml:3:5 bad thing', '/cfg/schema.json:1:2 worse thing'] });
    expect(generations.current).toBe(before);
    expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
      'config reload rejected: /cfg/config.yaml:3:5 bad thing',
      'config reload rejected: /cfg/schema.json:1:2 worse thing',
      'config reload failed; still serving the previous config',
    ]);
    expect(await metrics.registry.metrics()).toContain('mcp_retrofit_config_reloads_total{result="failed"} 1');
  });
});
