import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError, loadConfig, type LoadedConfig } from '../../../src/config/load.js';
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
  it('regression: a schema file that is a FIFO held the reload, and every later one, for good', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retrofit-reload-fifo-'));
    const schema = join(dir, 'schema.json');
    execFileSync('mkfifo', [schema]);
    onTestFinished(() => {
      // Old code: release the read still waiting on the FIFO (no reader: ENXIO, nothing to release).
      try {
        closeSync(openSync(schema, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // nobody reads it
      }
      rmSync(dir, { recursive: true, force: true });
    });
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'upstreams:\n  web:\n    url: http://a.test/mcp\n    tools:\n      t: { outputSchemaFile: schema.json }\n');
    const { reloader, generations } = setup(() => loadConfig(file, { env: {} }));
    const failed = await reloader.reload('SIGHUP');
    expect(failed).toEqual({ ok: false, problems: [`${file}:5:12 upstreams.web.tools.t: cannot read schema file ${schema} (is not a regular file)`] });
    expect(generations.number).toBe(1);
    // The next reload is not stuck behind it.
    unlinkSync(schema);
    writeFileSync(schema, '{"type": "object"}');
    expect(await reloader.reload('SIGHUP')).toMatchObject({ ok: true, generation: 2 });
  });

  it('regression: a config read from a pipe loads at start; a reload of it is refused at once, not left waiting on the pipe', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retrofit-reload-pipe-'));
    const file = join(dir, 'config.yaml');
    execFileSync('mkfifo', [file]);
    onTestFinished(() => {
      // Old code: release the reload's read still waiting on the pipe.
      try {
        closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // nobody reads it
      }
      rmSync(dir, { recursive: true, force: true });
    });
    // `--config <(…)`: read to its end at start.
    const [loaded] = await Promise.all([loadConfig(file, { env: {} }), writeFile(file, 'upstreams:\n  web:\n    url: http://a.test/mcp\n')]);
    expect(loaded.config.upstreams.web).toMatchObject({ url: 'http://a.test/mcp' });
    // The reloader's own loader (no `load` given): loadConfig for a reload.
    const { stream } = captureLogs();
    const generations = new Generations(loaded);
    const reloader = new Reloader({ file, generations, logger: createLogger({ level: 'info', destination: stream }), metrics: createMetrics({ defaultMetrics: false }) });
    expect(await reloader.reload('SIGHUP')).toEqual({ ok: false, problems: [`${file}:1:1 cannot reload config file (not a regular file: a pipe is read once, at start; serve a file to reload it)`] });
    expect(generations.number).toBe(1);
  });

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

  // Review of config, reload and auth (2026-12-07): a reload that removed `ui:` kept the running console (as
  // documented) but compiled the tools for none, so the console stopped collecting samples; one that added it kept
  // every call's arguments for a console that does not exist.
  it.each([
    ['runs (the new file says ui off)', true, false],
    ['does not run (the new file says ui on)', false, true],
  ])('compiles the new tools for the console that %s', async (_label, running, inFile) => {
    const dir = mkdtempSync(join(tmpdir(), 'retrofit-reload-ui-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'config.yaml');
    const yaml = (ui: boolean): string => `${ui ? 'ui:\n  enabled: true\n' : ''}upstreams:\n  web:\n    url: http://a.test/mcp\n    tools:\n      t:\n        outputSchema: { type: object }\n`;
    writeFileSync(file, yaml(running));
    const generations = new Generations(await loadConfig(file));
    expect(generations.current.policies.get('web')?.keepsArguments === true).toBe(running);
    writeFileSync(file, yaml(inFile));
    const { stream } = captureLogs();
    const reloader = new Reloader({ file, generations, logger: createLogger({ level: 'info', destination: stream }), metrics: createMetrics({ defaultMetrics: false }) });
    expect((await reloader.reload('SIGHUP')).ok).toBe(true);
    expect(generations.current.config.ui?.enabled === true).toBe(running);
    expect(generations.current.policies.get('web')?.keepsArguments === true).toBe(running);
  });
});
