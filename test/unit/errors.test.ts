/**
 * The error registry and the README's "Errors" table must agree: every code documented with its HTTP status and
 * JSON-RPC code, and nothing documented that the registry lacks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS, RetrofitError, type ErrorCode } from '../../src/errors.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

function documented(): Map<string, { status: string; rpc: string }> {
  const section = readme.split('\n## Errors')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, { status: string; rpc: string }>();
  for (const match of section.matchAll(/^\| `(RETROFIT_ERR_[A-Z_]+)` \| ([^|]+) \| ([^|]+) \|/gm)) {
    rows.set(match[1]!, { status: match[2]!.trim(), rpc: match[3]!.trim() });
  }
  return rows;
}

describe('error registry', () => {
  it('every code is documented in README.md with its HTTP status and JSON-RPC code', () => {
    const rows = documented();
    for (const [code, spec] of Object.entries(ERRORS)) {
      const row = rows.get(code);
      expect(row, `${code} missing from README`).toBeDefined();
      if (code === 'RETROFIT_ERR_CONFIG') continue; // never sent to a client
      expect(row).toEqual({ status: String(spec.status), rpc: String(spec.rpcCode) });
    }
  });

  it('the README documents no code the registry lacks', () => {
    for (const code of documented().keys()) expect(Object.keys(ERRORS)).toContain(code);
  });

  it('a RetrofitError carries its code, status, cause and a JSON-RPC body', () => {
    const cause = new Error('ECONNREFUSED');
    const error = new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', ['weather'], { cause });
    expect(error.message).toBe('upstream "weather" is unreachable');
    expect(error.status).toBe(502);
    expect(error.cause).toBe(cause);
    expect(error.toJsonRpc(7)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: 'upstream "weather" is unreachable', data: { code: 'RETROFIT_ERR_UPSTREAM_UNREACHABLE' } },
    });
  });

  it('codes are stable RETROFIT_ERR_* names', () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) expect(code).toMatch(/^RETROFIT_ERR_[A-Z_]+$/);
  });
});
