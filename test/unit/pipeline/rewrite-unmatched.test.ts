/** serve logs a configured tool key that the first tools/list does not show: once per upstream, at warn. */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { createRewriter, type PendingRequest } from '../../../src/pipeline/rewrite.js';
import { captureLogs } from '../../helpers/gateway.js';
import { upstreamWith } from '../retrofit/helpers.js';

describe('Rewriter and keys that match no listed tool', () => {
  it('warns once per key on the first complete listing, in the same words as check --probe', () => {
    const policy = upstreamWith({ get_weather: { outputSchema: { type: 'object' } }, get_wether: { outputSchema: { type: 'object' } } });
    const rewriter = createRewriter(createMetrics({ defaultMetrics: false }), { pool: false, isolatePool: false });
    const { lines, stream } = captureLogs();
    const log = createLogger({ level: 'debug', destination: stream });
    const list: PendingRequest = { upstream: 'u', method: 'tools/list', revision: '2025-11-25', policy };
    const answer = (nextCursor?: string) => ({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'get_weather', inputSchema: { type: 'object' } }], ...(nextCursor && { nextCursor }) } });

    rewriter.respond(list, { message: answer('more') }, log);
    expect(lines.filter((l) => l.level === 40)).toEqual([]);
    rewriter.respond(list, { message: answer() }, log);
    rewriter.respond(list, { message: answer() }, log);
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings).toEqual([expect.objectContaining({ key: 'get_wether', msg: 'upstreams.u.tools: key "get_wether" matches no tool listed by "u" (did you mean "get_weather"?)' })]);
  });
});
