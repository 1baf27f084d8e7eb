import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { PendingTable, type Pending } from '../../../src/session/pending.js';
import { relatedRequest } from '../../../src/session/related.js';

function request(id: number, progressToken?: string): Pending<string> {
  return { id, method: 'tools/call', expect: { kind: 'route' }, started: 0, stream: `stream-${id}`, deadline: Infinity, answered: false, ...(progressToken !== undefined && { progressToken }) };
}
const progress = (token: string): JsonObject => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1 } });
const log: JsonObject = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };

describe('relatedRequest', () => {
  it('finds the request by the link\'s word, its progress token, or as the only one in flight', () => {
    const table = new PendingTable<string>();
    const one = request(1, 'a');
    table.add(one);
    expect(relatedRequest(table, log, 1, [])).toBe(one);
    expect(relatedRequest(table, progress('a'), undefined, [])).toBe(one);
    expect(relatedRequest(table, log, undefined, [])).toBe(one);
    const two = request(2, 'b');
    table.add(two);
    expect(relatedRequest(table, progress('b'), undefined, [])).toBe(two);
    expect(relatedRequest(table, log, undefined, [])).toBeUndefined();
  });

  it('counts the requests a batch answers after the message as still in flight', () => {
    const table = new PendingTable<string>();
    const open = request(1, 'a');
    const later = request(2, 'b');
    // Its answer further on in the batch took `later` off the table already.
    expect(relatedRequest(table, progress('b'), undefined, [later])).toBe(later);
    expect(relatedRequest(table, log, undefined, [later])).toBe(later);
    expect(relatedRequest(table, log, 2, [later])).toBe(later);
    table.add(open);
    // Two in flight: a message with no token belongs to neither; one with a token to its own.
    expect(relatedRequest(table, log, undefined, [later])).toBeUndefined();
    expect(relatedRequest(table, progress('b'), undefined, [later])).toBe(later);
    expect(relatedRequest(table, progress('a'), undefined, [later])).toBe(open);
  });
});
