/**
 * Regression (review of config, reload and auth, 2026-12-07): a SIGHUP while the gateway was still starting (its
 * handler was installed only once it listened) ended the process, silently, with Node's default action (exit
 * 129). Now a SIGHUP is heard from the first moment, and the reload it asked for runs once the gateway serves.
 */
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { serve } from '../../src/cli/serve.js';
import type { ReloadResult } from '../../src/reload/reloader.js';
import { captureLogs } from '../helpers/gateway.js';

describe('regression: SIGHUP while the gateway starts', () => {
  it('is heard at once, and reloads the config once the gateway serves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'retrofit-early-hup-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, `upstreams:\n  up:\n    url: http://127.0.0.1:9/mcp\n`);
    const signals = new EventEmitter();
    const { stream } = captureLogs();
    const starting = serve(['--config', file, '--host', '127.0.0.1', '--port', '0'], { stdout: new PassThrough(), stderr: new PassThrough() }, { signals, logDestination: stream });
    // Before the config is even read: a real process would otherwise end here.
    expect(signals.listenerCount('SIGHUP')).toBe(1);
    signals.emit('SIGHUP');
    const handle = await starting;
    if (typeof handle === 'number') throw new Error(`serve exited ${handle}`);
    onTestFinished(() => handle.shutdown('test end'));
    const [result, trigger] = (await once(handle.reloader, 'reload')) as [ReloadResult, string];
    expect(trigger).toBe('SIGHUP');
    expect(result.ok).toBe(true);
    // Serving, the one handler is the gateway's own.
    expect(signals.listenerCount('SIGHUP')).toBe(1);
  });
});
