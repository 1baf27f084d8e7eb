import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { mkdtempSync, openSync, readFileSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { exchangeFields, type ExchangeRecord } from '../../src/http/server/exchange-log.js';
import { BatchedWriter, createLogger, infoFields, LazyLog, loggerOptions, Redactor } from '../../src/log.js';

function capture(): { lines: Record<string, unknown>[]; raw: string[]; stream: { write(line: string): void } } {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  return {
    lines,
    raw,
    stream: {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  };
}

describe('Redactor', () => {
  it('scrubs every secret, longest first, JSON-escaped forms too, and grows', () => {
    const r = new Redactor(['abcd', 'abcdefgh', 'no']);
    expect(r.scrub('x abcdefgh y abcd z no')).toBe('x [Redacted] y [Redacted] z no');
    r.add(['quo"te\\d']);
    expect(r.scrub(JSON.stringify({ v: 'quo"te\\d' }))).toBe('{"v":"[Redacted]"}');
    expect(r.scrub('nothing here')).toBe('nothing here');
  });

  it('takes no JSON literal for a secret: a log line with `"aborted":true` stays JSON (a child\'s env switch "true")', () => {
    const r = new Redactor(['true', 'false', 'null', '12345', '-1.5', 'real-secret']);
    const line = JSON.stringify({ aborted: true, ok: false, v: null, n: 12345, x: -1.5, key: 'real-secret' });
    expect(JSON.parse(r.scrub(line))).toEqual({ aborted: true, ok: false, v: null, n: 12345, x: -1.5, key: '[Redacted]' });
  });
});

describe('createLogger', () => {
  it('redacts credential headers and env by path, and secrets anywhere', () => {
    const { lines, raw, stream } = capture();
    const redactor = new Redactor(['s3cret-value']);
    const log = createLogger({ level: 'info', destination: stream, redactor });
    log.info({ headers: { authorization: 'Bearer x', cookie: 'c=1', accept: '*/*' }, env: { K: 'v' } }, 'sent');
    log.info({ detail: 'the s3cret-value is here' }, 'message with s3cret-value');
    redactor.add(['later-secret']);
    log.info('now later-secret too');
    expect(lines[0]).toMatchObject({ headers: { authorization: '[Redacted]', cookie: '[Redacted]', accept: '*/*' }, env: '[Redacted]' });
    expect(lines[1]).toMatchObject({ detail: 'the [Redacted] is here', msg: 'message with [Redacted]' });
    expect(lines[2]?.msg).toBe('now [Redacted] too');
    expect(raw.join('')).not.toMatch(/s3cret-value|later-secret/);
  });

  it('honours LOG_LEVEL, and falls back to info (saying so) for an unknown one', () => {
    onTestFinished(() => void vi.unstubAllEnvs());
    vi.stubEnv('LOG_LEVEL', 'warn');
    const quiet = capture();
    const warnOnly = createLogger({ destination: quiet.stream });
    warnOnly.info('hidden');
    warnOnly.warn('shown');
    expect(quiet.lines.map((l) => l.msg)).toEqual(['shown']);

    vi.stubEnv('LOG_LEVEL', 'chatty');
    const fallback = capture();
    const log = createLogger({ destination: fallback.stream });
    log.info('info works');
    log.debug('debug hidden');
    expect(log.level).toBe('info');
    expect(fallback.lines.map((l) => l.msg)).toEqual(['unknown LOG_LEVEL; using info', 'info works']);
  });

});

describe('infoFields (the exchange line, serialised by the caller)', () => {
  const records: ExchangeRecord[] = [
    { reqId: 'r-1', upstream: 'weather', method: 'tools/call', tool: 'get "forecast"\n', revision: '2025-06-18', revisionSource: 'header', status: 200, started: 0 },
    { reqId: 'r-2', upstream: 'weather', session: 'sé\u0001ssion', method: 'initialize', requested: '2026-07-28', client: 'client</x>@1.0', status: 502, rpcError: -32000, errorCode: 'RETROFIT_ERR_UPSTREAM_UNREACHABLE', aborted: true, started: 0 },
    { reqId: 'r-3', upstream: 'docs', method: 'GET', path: '/mcp/.well-known/x', rewritten: false, profile: 'p', status: 0, started: 0 },
  ];
  const outcomes = ['ok', 'aborted', 'error'];

  /** The same record written by pino from an object, and by infoFields, through one logger each. */
  function both(options: pino.LoggerOptions, child?: Record<string, unknown>): [string[], string[]] {
    const viaPino: string[] = [];
    const viaFields: string[] = [];
    const base = pino(options, { write: (l: string) => viaPino.push(l) });
    const fast = pino(options, { write: (l: string) => viaFields.push(l) });
    const a = child ? base.child(child) : base;
    const b = child ? fast.child(child) : fast;
    vi.useFakeTimers({ now: 1_800_000_000_000, toFake: ['Date'] });
    try {
      records.forEach((r, i) => {
        const fields = exchangeFields(r, outcomes[i]!, 7);
        a.info(JSON.parse(`{${fields.slice(1)}}`) as object, 'request');
        infoFields(b, fields, 'request');
      });
    } finally {
      vi.useRealTimers();
    }
    return [viaPino, viaFields];
  }

  it('writes byte for byte what pino writes for the same fields: escapes, bindings, a child, secrets scrubbed', () => {
    const [p1, f1] = both(loggerOptions({}));
    expect(f1).toEqual(p1);
    expect(JSON.parse(f1[1]!)).toMatchObject({ level: 30, name: 'mcp-retrofit', session: 'sé\u0001ssion', client: 'client</x>@1.0', aborted: true, durationMs: 7, msg: 'request' });
    const [p2, f2] = both(loggerOptions({ secrets: ['weather'] }), { component: 'x' });
    expect(f2).toEqual(p2);
    expect(f2[0]).toContain('"upstream":"[Redacted]"');
    expect(f2[0]).toContain('"component":"x"');
  });

  it('hands the fields to pino when the logger shapes its lines itself (a mixin), and writes nothing below its level', () => {
    const [p, f] = both({ ...loggerOptions({}), mixin: () => ({ extra: 1 }) });
    expect(f).toEqual(p);
    expect(JSON.parse(f[0]!)).toMatchObject({ extra: 1, reqId: 'r-1' });
    const lines: string[] = [];
    infoFields(pino({ level: 'warn' }, { write: (l: string) => lines.push(l) }), ',"a":1', 'request');
    expect(lines).toEqual([]);
  });
});

describe('LazyLog', () => {
  it('binds its child only when a line at an enabled level is written, and writes it with the bindings', () => {
    const { lines, stream } = capture();
    const parent = createLogger({ destination: stream, level: 'info' });
    let bound = 0;
    const log = new LazyLog(parent, () => {
      bound += 1;
      return { reqId: 'r-9', upstream: 'up' };
    });
    expect(log.isLevelEnabled('debug')).toBe(false);
    log.debug({ a: 1 }, 'not written');
    expect(bound).toBe(0);
    log.warn({ a: 2 }, 'written');
    log.error('again');
    expect(bound).toBe(1);
    expect(lines).toMatchObject([
      { level: 40, reqId: 'r-9', upstream: 'up', a: 2, msg: 'written' },
      { level: 50, reqId: 'r-9', msg: 'again' },
    ]);
  });
});

describe('BatchedWriter', () => {
  function file(): { path: string; fd: number } {
    const dir = mkdtempSync(join(tmpdir(), 'batched-writer-'));
    const path = join(dir, 'out.log');
    const fd = openSync(path, 'w');
    onTestFinished(() => {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    });
    return { path, fd };
  }

  it('writes lines in order once a batch is full, and the rest when flushed', async () => {
    const { path, fd } = file();
    const writer = new BatchedWriter(fd, 64, 60_000);
    onTestFinished(() => writer.end());
    const lines = Array.from({ length: 50 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(i % 7)}"}\n`);
    for (const line of lines) writer.write(line);
    await new Promise<void>((resolve) => writer.flush(resolve));
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
  });

  it('keeps every byte and the order of lines across batches: multi-byte text, a line larger than a batch buffer', async () => {
    const { path, fd } = file();
    const writer = new BatchedWriter(fd, 256, 60_000);
    onTestFinished(() => writer.end());
    const lines = [
      ...Array.from({ length: 300 }, (_, i) => `{"n":${i},"city":"Zürich ${'é'.repeat(i % 11)}","mood":"${'😀'.repeat(i % 3)}"}\n`),
      `{"big":"${'ü'.repeat(5_000)}"}\n`,
      ...Array.from({ length: 40 }, (_, i) => `{"after":${i}}\n`),
    ];
    // Written without waiting: later batches queue behind the write under way.
    for (const line of lines) writer.write(line);
    await new Promise<void>((resolve) => writer.flush(resolve));
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
  });

  it('drops lines past the pending bound, and says how many once it writes again', async () => {
    const { path, fd } = file();
    const writer = new BatchedWriter(fd, 1 << 20, 60_000, 120);
    onTestFinished(() => writer.end());
    for (let i = 0; i < 10; i++) writer.write(`{"n":${i},"pad":"${'x'.repeat(20)}"}\n`);
    await new Promise<void>((resolve) => writer.flush(resolve));
    const out = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out.slice(0, -1).map((l) => l.n)).toEqual([0, 1, 2]);
    expect(out.at(-1)).toMatchObject({ level: 40, dropped: 7, msg: 'log lines dropped: the log output did not keep up' });
  });

  it('writes what is pending synchronously on end (exit)', () => {
    const { path, fd } = file();
    const writer = new BatchedWriter(fd, 1 << 20, 60_000);
    writer.write('one\n');
    writer.write('two\n');
    expect(readFileSync(path, 'utf8')).toBe('');
    writer.end();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
  });
});
