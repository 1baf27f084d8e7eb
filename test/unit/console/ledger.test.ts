/** The outcome ledger: kinds by minute, shadow apart, samples only when arguments were kept, bounded tools. */
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/console/catalog.js';
import { Ledger } from '../../../src/console/ledger.js';
import { SessionBook } from '../../../src/console/sessions.js';
import { cachedReadiness, READY_TTL_MS } from '../../../src/console/upstreams.js';
import type { OutcomeEvent } from '../../../src/pipeline/report.js';
import type { UpstreamPolicy } from '../../../src/retrofit/policy.js';
import { TOOL_NAME_CHARS } from '../../../src/tool-name.js';

const NOW = 1_764_740_000_000;
const policy = (keepsArguments: boolean): UpstreamPolicy => ({ upstream: 'u', resolve: () => undefined, ...(keepsArguments && { keepsArguments: true }) });

function event(tool: string, outcome: OutcomeEvent['outcome']['outcome'], extra: Partial<OutcomeEvent> = {}, keeps = true): OutcomeEvent {
  return {
    request: { upstream: 'u', method: 'tools/call', tool, revision: '2025-06-18', policy: policy(keeps), arguments: { city: 'Paris' } },
    tool,
    outcome: { tool, outcome, format: 'json', ...(outcome === 'invalid' && { reasons: ['/temp must be number'] }) },
    mode: 'applied',
    ms: 0.5,
    result: { content: [{ type: 'text', text: '{"city":"Paris","temp":"warm"}' }] },
    ...extra,
  };
}

describe('Ledger', () => {
  it('counts each kind, shadow apart, and keeps the last failures and successes', () => {
    const ledger = new Ledger({ samples: 2, maxTextBytes: 1024, now: () => NOW });
    ledger.record(event('t', 'extracted', { delivered: { structuredContent: { city: 'Paris' } } }));
    ledger.record(event('t', 'native'));
    ledger.record(event('t', 'invalid'));
    ledger.record(event('t', 'invalid', { mode: 'shadow' }));
    ledger.record(event('t', 'untouched'));
    const entry = ledger.get('u', 't')!;
    const series = entry.series.series(NOW);
    expect([series.extracted.at(-1), series.validated.at(-1), series.invalid.at(-1), series.shadow.at(-1)]).toEqual([1, 1, 1, 1]);
    expect(entry.added.percentiles()?.count).toBe(4);
    const [failure] = entry.failures.newestFirst();
    expect(failure).toMatchObject({ mode: 'shadow', text: '{"city":"Paris","temp":"warm"}', args: ['Paris'], reasons: ['/temp must be number'] });
    expect(entry.successes.newestFirst().map((s) => s.structured ?? null)).toEqual([null, { city: 'Paris' }]);
    expect(ledger.seq).toBe(4);
  });

  it('keeps no sample of a call whose arguments were not kept (it could not be scrubbed)', () => {
    const ledger = new Ledger({ samples: 2, maxTextBytes: 1024, now: () => NOW });
    ledger.record(event('t', 'invalid', {}, false));
    expect(ledger.get('u', 't')!.failures.newestFirst()).toEqual([]);
  });

  it('cuts a large text without joining all of it, and keeps no structuredContent beside a cut text', () => {
    const ledger = new Ledger({ samples: 2, maxTextBytes: 10, now: () => NOW });
    const big = { content: [{ type: 'text', text: 'x'.repeat(1_000_000) }, { type: 'text', text: 'y' }] };
    ledger.record(event('t', 'extracted', { result: big, delivered: { structuredContent: { a: 1 } } }));
    const [kept] = ledger.get('u', 't')!.successes.newestFirst();
    expect(kept).toMatchObject({ text: 'xxxxxxxxxx', truncated: true });
    expect(kept?.structured).toBeUndefined();
  });

  it('tracks at most maxTools tools, counting the outcomes of others as dropped', () => {
    const ledger = new Ledger({ samples: 1, maxTextBytes: 10, maxTools: 2, now: () => NOW });
    for (const tool of ['a', 'b', 'c', 'c']) ledger.record(event(tool, 'native'));
    expect(ledger.toolsOf('u').sort()).toEqual(['a', 'b']);
    expect(ledger.dropped).toBe(2);
  });

  it('tracks no tool named in more than TOOL_NAME_CHARS characters: a client may call any name, of any length', () => {
    const ledger = new Ledger({ samples: 1, maxTextBytes: 10, now: () => NOW });
    const long = 'x'.repeat(TOOL_NAME_CHARS + 1);
    ledger.record(event(long, 'native'));
    ledger.record(event('x'.repeat(TOOL_NAME_CHARS), 'native'));
    expect(ledger.toolsOf('u')).toEqual(['x'.repeat(TOOL_NAME_CHARS)]);
    expect(ledger.get('u', long)).toBeUndefined();
    expect(ledger.dropped).toBe(1);
  });
});

describe('Catalog', () => {
  it('remembers what each listing declared, bounded', () => {
    const catalog = new Catalog(2);
    catalog.listed('u', { tools: [{ name: 'a', outputSchema: { type: 'object' } }, { name: 'b' }, { name: 'c' }, 'junk'] });
    expect(catalog.toolsOf('u')).toEqual(['a', 'b']);
    expect(catalog.get('u', 'a')?.declared).toEqual({ type: 'object' });
    const seq = catalog.seq;
    catalog.listed('u', { tools: [{ name: 'a', outputSchema: { type: 'object' } }] });
    expect(catalog.seq).toBe(seq);
  });

  it('keeps declared schemas up to a budget of characters: past it, a stand-in says one was declared', () => {
    const catalog = new Catalog(100, 100);
    const big = { type: 'object', description: 'x'.repeat(60) };
    catalog.listed('u', { tools: [{ name: 'a', outputSchema: big }, { name: 'b', outputSchema: big }] });
    expect(catalog.get('u', 'a')?.declared).toEqual(big);
    expect(catalog.get('u', 'b')?.declared).toMatchObject({ description: expect.stringContaining('not kept') });
    // A later listing that drops a's schema frees its share: b's fits now.
    catalog.listed('u', { tools: [{ name: 'a' }, { name: 'b', outputSchema: big }] });
    expect(catalog.get('u', 'a')?.declared).toBeUndefined();
    expect(catalog.get('u', 'b')?.declared).toEqual(big);
  });

  it('keeps nothing of a tool an upstream names in more than TOOL_NAME_CHARS characters', () => {
    const catalog = new Catalog();
    catalog.listed('u', { tools: [{ name: 'y'.repeat(TOOL_NAME_CHARS + 1), outputSchema: { type: 'object' } }, { name: 'ok' }] });
    expect(catalog.toolsOf('u')).toEqual(['ok']);
  });
});

describe('SessionBook', () => {
  it('lists open sessions with what their state says, newest first, and frees each when it ends', () => {
    const book = new SessionBook({ now: () => NOW });
    const a = { negotiated: { client: '2025-06-18', upstream: '2025-03-26', bridged: true }, client: { name: 'claude-ai', version: '1' }, profile: 'cursor' };
    const b = { negotiated: undefined, client: undefined, profile: undefined };
    book.opened('u', 'abcdefghijkl', a);
    book.opened('u', '0123456789', b);
    const view = book.view();
    expect(view).toMatchObject({ total: 2, byRevision: { '2025-06-18': 1 }, byClient: { 'claude-ai': 1, '(unnamed)': 1 }, byProfile: { cursor: 1 }, bridged: 1 });
    expect(view.sessions.map((s) => s.id)).toEqual(['01234567…', 'abcdefgh…']);
    expect(view.sessions[1]).toMatchObject({ upstreamRevision: '2025-03-26', bridged: true, profile: 'cursor', openedAt: NOW });
    book.closed(a);
    book.closed(b);
    expect(book.size).toBe(0);
  });
});

describe('cachedReadiness', () => {
  it('asks the upstream at most once every READY_TTL_MS', async () => {
    let now = 0;
    let asked = 0;
    const ready = cachedReadiness(() => Promise.resolve({ ok: ++asked > 0 }), () => now);
    await ready();
    await ready();
    now += READY_TTL_MS - 1;
    await ready();
    expect(asked).toBe(1);
    now += 1;
    await ready();
    expect(asked).toBe(2);
  });
});

describe('the samples budget', () => {
  it('keeps no more text once the kept samples weigh maxSampleBytes, and again once old ones are pushed out', () => {
    const ledger = new Ledger({ samples: 1, maxTextBytes: 1024, maxSampleBytes: 100, now: () => NOW });
    const text = (n: number) => ({ content: [{ type: 'text', text: 'x'.repeat(n) }] });
    ledger.record(event('a', 'invalid', { result: text(60) }));
    ledger.record(event('b', 'invalid', { result: text(10) }));
    expect(ledger.get('u', 'b')!.failures.newestFirst()[0]?.text).toBeNull();
    // a's only sample is pushed out by a short one: room again.
    ledger.record(event('a', 'invalid', { result: text(5) }));
    ledger.record(event('b', 'invalid', { result: text(10) }));
    expect(ledger.get('u', 'b')!.failures.newestFirst()[0]?.text).toBe('x'.repeat(10));
  });
});
