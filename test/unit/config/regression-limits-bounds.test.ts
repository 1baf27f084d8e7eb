/**
 * Regression: `limits.*` (and the other millisecond settings) had no upper bound, so `check` passed values the
 * server then refused or mishandled: a headersTimeoutMs over 300000 made `serve` die with Node's RangeError,
 * and a timer over 2^31-1 ms is set to 1 ms by Node. Each bound is now a config error at its value.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { load, problemsOf } from './helpers.js';

const up = ['upstreams:', '  a:', '    url: http://127.0.0.1:9000/mcp'];

const rows: readonly { name: string; lines: readonly string[]; at: string; text: string }[] = [
  { name: 'headersTimeoutMs past the longest timer', lines: ['limits:', '  headersTimeoutMs: 10000000000', '  requestTimeoutMs: 10000000000', ...up], at: '2:21', text: 'limits.headersTimeoutMs: must be <= 2147483647' },
  { name: 'requestTimeoutMs past the longest timer', lines: ['limits:', '  requestTimeoutMs: 1e15', ...up], at: '2:21', text: 'limits.requestTimeoutMs: must be <= 2147483647' },
  { name: 'keepAliveTimeoutMs past the longest timer', lines: ['limits:', '  keepAliveTimeoutMs: 99999999999', ...up], at: '2:23', text: 'limits.keepAliveTimeoutMs: must be <= 2147483647' },
  { name: 'maxRequestBytes past 256 MiB', lines: ['limits:', '  maxRequestBytes: 1e300', ...up], at: '2:20', text: 'limits.maxRequestBytes: must be <= 268435456' },
  { name: 'maxResultBytes past 256 MiB', lines: ['limits:', '  maxResultBytes: 268435457', ...up], at: '2:19', text: 'limits.maxResultBytes: must be <= 268435456' },
  { name: 'maxHeaderBytes past 1 MiB', lines: ['limits:', '  maxHeaderBytes: 1e12', ...up], at: '2:19', text: 'limits.maxHeaderBytes: must be <= 1048576' },
  { name: 'upstream timeoutMs past the longest timer', lines: [...up, '    timeoutMs: 99999999999'], at: '4:16', text: 'upstreams.a.timeoutMs: must be <= 2147483647' },
  { name: 'idleTimeoutMs past the longest timer', lines: ['upstreams:', '  a:', '    command: node', '    idleTimeoutMs: 99999999999'], at: '4:20', text: 'upstreams.a.idleTimeoutMs: must be <= 2147483647' },
  {
    name: 'stateless.idleTimeoutMs past the longest timer',
    lines: ['defaults:', '  stateless: { idleTimeoutMs: 2147483648 }', ...up],
    at: '2:31',
    text: 'defaults.stateless.idleTimeoutMs: must be <= 2147483647',
  },
  { name: 'headers given longer than the whole request', lines: ['limits:', '  headersTimeoutMs: 700000', '  requestTimeoutMs: 600000', ...up], at: '2:21', text: 'limits: headersTimeoutMs (700000) must not exceed requestTimeoutMs (600000)' },
];

describe('limits and timers have a ceiling, checked at load', () => {
  test.each(rows)('$name', async (row) => {
    const { dir, problems } = await problemsOf(`${row.lines.join('\n')}\n`);
    const shown = problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
    expect(shown, shown.join('\n')).toContainEqual(expect.stringContaining(`${join(dir, 'config.yaml')}:${row.at} ${row.text}`));
  });

  test('headersTimeoutMs over Node\'s default requestTimeout (300000) is valid when requestTimeoutMs covers it', async () => {
    const { loaded } = await load(`${['limits:', '  headersTimeoutMs: 400000', '  requestTimeoutMs: 600000', '  keepAliveTimeoutMs: 2147483647', ...up].join('\n')}\n`);
    expect(loaded.config.limits).toMatchObject({ headersTimeoutMs: 400000, requestTimeoutMs: 600000, keepAliveTimeoutMs: 2147483647 });
  });
});
