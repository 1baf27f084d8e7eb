import { describe, expect, it } from 'vitest';
import { isMintedSessionId, mintedSessionId, sessionId } from '../../../../src/http/server/ids.js';

describe('session ids', () => {
  it('a minted id is `[<prefix>.]mr-<uuid>`, fresh each time', () => {
    expect(mintedSessionId(undefined)).toMatch(/^mr-[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/);
    expect(mintedSessionId('r1')).toMatch(/^r1\.mr-[0-9a-f-]{36}$/);
    expect(mintedSessionId('r1')).not.toBe(mintedSessionId('r1'));
  });

  it('any replica recognises a minted id, and only one', () => {
    expect(isMintedSessionId(mintedSessionId(undefined))).toBe(true);
    // Another replica's prefix: still the gateway's, never the upstream's.
    expect(isMintedSessionId(mintedSessionId('pod-7_b'))).toBe(true);
    expect(isMintedSessionId(sessionId(undefined))).toBe(false);
    expect(isMintedSessionId(sessionId('r1'))).toBe(false);
    expect(isMintedSessionId('mr-session-of-the-upstream')).toBe(false);
    expect(isMintedSessionId(`x.y.${mintedSessionId(undefined)}`)).toBe(false);
    expect(isMintedSessionId(`${mintedSessionId(undefined)} `)).toBe(false);
  });
});
