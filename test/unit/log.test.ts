import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { mkdtempSync, openSync, readFileSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchedWriter, createLogger, Redactor } from '../../src/log.js';

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
