import { describe, expect, it } from 'vitest';
import { REVISIONS } from '../../../src/protocol/era.js';
import { negotiate, upstreamProtocolHeader } from '../../../src/protocol/negotiate.js';

const OLD = ['2024-11-05', '2025-03-26'] as const;
const STRUCTURED = ['2025-06-18', '2025-11-25'] as const;

describe('negotiate', () => {
  it('knows the revisions this table is written for', () => {
    // A new revision in era.ts needs a row here.
    expect(REVISIONS).toEqual([...OLD, ...STRUCTURED, '2026-07-28']);
  });

  describe('bridges a structured-output client up over an upstream without structured output', () => {
    const rows = STRUCTURED.flatMap((requested) => OLD.map((answered) => ({ requested, answered, client: requested })));
    // Initialize is stateful: a client of a stateless (or unknown future) revision gets the newest stateful one.
    rows.push(...OLD.map((answered) => ({ requested: '2026-07-28' as never, answered, client: '2025-11-25' as never })));
    rows.push(...OLD.map((answered) => ({ requested: '2027-03-01' as never, answered, client: '2025-11-25' as never })));

    it.each(rows)('client $requested, upstream $answered → client answered $client', ({ requested, answered, client }) => {
      expect(negotiate(requested, answered, true)).toEqual({ client, upstream: answered, bridged: true });
    });
  });

  describe('bridges a client down to its own, older session revision (as a shared child answers later clients)', () => {
    const SESSION = [...OLD, ...STRUCTURED];
    const rows = SESSION.flatMap((requested) => SESSION.filter((answered) => answered > requested).map((answered) => ({ requested, answered })));

    it.each(rows)('client $requested, upstream $answered → client answered $requested', ({ requested, answered }) => {
      expect(negotiate(requested, answered, true)).toEqual({ client: requested, upstream: answered, bridged: true });
    });
  });

  describe('leaves everything else to the upstream (the client is answered what the upstream said)', () => {
    const rows: { why: string; requested: unknown; answered: string; bridge: boolean }[] = [
      // The same revision, or a client newer than its upstream within one era: the protocol's own negotiation.
      ...STRUCTURED.flatMap((requested) => STRUCTURED.filter((answered) => answered <= requested).map((answered) => ({ why: 'same era, client not older', requested, answered, bridge: true }))),
      // An upstream that answers initialize with a revision without sessions: nothing to bridge down to.
      ...[...OLD, ...STRUCTURED].map((requested) => ({ why: 'stateless upstream', requested, answered: '2026-07-28', bridge: true })),
      // Clients without structured output are never bridged up.
      ...OLD.flatMap((requested) => OLD.filter((answered) => answered <= requested).map((answered) => ({ why: 'old client', requested, answered, bridge: true }))),
      // A revision the gateway does not know is not one it can serve.
      { why: 'unknown older client', requested: '2024-10-07', answered: '2025-06-18', bridge: true },
      // bridge: false
      ...STRUCTURED.flatMap((requested) => OLD.map((answered) => ({ why: 'bridge off', requested, answered, bridge: false }))),
      { why: 'bridge off, older client', requested: '2024-11-05', answered: '2025-06-18', bridge: false },
      { why: 'bridge off, future client', requested: '2026-07-28', answered: '2025-03-26', bridge: false },
      // Garbage in: nothing bridged.
      ...[undefined, null, 42, '', 'latest', '2025-11-25T00:00:00Z', { v: '2025-11-25' }].map((requested) => ({ why: 'garbage request', requested, answered: '2025-03-26', bridge: true })),
      ...['', 'latest', '2025-3-26'].map((answered) => ({ why: 'garbage answer', requested: '2025-11-25', answered, bridge: true })),
    ];

    it.each(rows)('$why: client $requested, upstream $answered, bridge $bridge', ({ requested, answered, bridge }) => {
      expect(negotiate(requested, answered, bridge)).toEqual({ client: answered, upstream: answered, bridged: false });
    });
  });
});

describe('upstreamProtocolHeader', () => {
  const session = (client: string, upstream: string) => ({ client, upstream, bridged: client !== upstream });
  it.each([
    // Unknown session (another replica saw the initialize): the client's header goes as it is.
    { client: '2025-11-25', upstream: undefined, sent: '2025-11-25' },
    { client: undefined, upstream: undefined, sent: undefined },
    { client: undefined, upstream: session('2025-06-18', '2025-06-18'), sent: undefined },
    // Bridged up: upstreams before 2025-06-18 have no such header.
    { client: '2025-11-25', upstream: session('2025-11-25', '2025-03-26'), sent: undefined },
    { client: '2025-06-18', upstream: session('2025-06-18', '2024-11-05'), sent: undefined },
    // Same era: unchanged.
    { client: '2025-11-25', upstream: session('2025-06-18', '2025-06-18'), sent: '2025-11-25' },
    { client: '2025-06-18', upstream: session('2025-06-18', '2025-06-18'), sent: '2025-06-18' },
    { client: '2026-07-28', upstream: session('2025-11-25', '2025-11-25'), sent: '2026-07-28' },
    // Bridged down: the upstream's own revision, header or not from the client; none before 2025-06-18.
    { client: '2025-06-18', upstream: session('2025-06-18', '2025-11-25'), sent: '2025-11-25' },
    { client: undefined, upstream: session('2025-03-26', '2025-06-18'), sent: '2025-06-18' },
    { client: undefined, upstream: session('2024-11-05', '2025-03-26'), sent: undefined },
    { client: '2026-07-28', upstream: session('2025-06-18', '2025-11-25'), sent: '2026-07-28' },
  ])('client header $client, session $upstream → $sent', ({ client, upstream, sent }) => {
    expect(upstreamProtocolHeader(client, upstream)).toBe(sent);
  });
});
