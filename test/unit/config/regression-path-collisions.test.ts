/**
 * Regression: `check` compared only equal upstream paths, so configs whose routes collide with routes the
 * gateway derives (an sse: upstream's `<path>/message`, the console's `/ui…`) passed it and then crashed
 * `serve` with a raw FastifyError, and paths that shadow the gateway's own routes (the OAuth root routes,
 * `/debug/retrofit`, a url: upstream's `<path>/.well-known/…`) passed silently. Each is now a config error at
 * the upstream's path naming what it collides with. The OAuth routes yield to an upstream that takes their URL
 * instead (as before): they are the gateway's conveniences, not routes an operator asked for.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { load, problemsOf } from './helpers.js';

const rows: readonly { name: string; lines: readonly string[]; at: string; text: string }[] = [
  {
    name: 'a path equal to an sse upstream\'s message route',
    lines: ['upstreams:', "  a: { sse: 'http://127.0.0.1:1/sse', path: /x }", "  b: { url: 'http://127.0.0.1:1/mcp', path: /x/message }"],
    at: '3:45',
    text: 'upstreams.b: path /x/message is already used by the legacy message route of upstream "a" (an sse: upstream at /x)',
  },
  {
    name: 'an sse upstream whose message route is an earlier upstream\'s path',
    lines: ['upstreams:', "  b: { url: 'http://127.0.0.1:1/mcp', path: /x/message/ }", "  a: { sse: 'http://127.0.0.1:1/sse', path: /x }"],
    at: '3:45',
    text: 'upstreams.a: path /x: its route /x/message is already used by upstream "b"',
  },
  {
    name: '/ui with the console on',
    lines: ['upstreams:', '  a: { command: node, path: /ui }', 'ui: { enabled: true }'],
    at: '2:29',
    text: 'upstreams.a: path /ui is under /ui/, which is reserved for the operator console (`ui.enabled`)',
  },
  { name: 'under /ui/ with the console on', lines: ['upstreams:', '  a: { command: node, path: /ui/api/overview }', 'ui: { enabled: true }'], at: '2:29', text: 'is under /ui/, which is reserved for the operator console' },
  { name: '/debug/retrofit', lines: ['upstreams:', '  a: { command: node, path: /debug/retrofit }'], at: '2:29', text: 'upstreams.a.path: is reserved (/healthz, /readyz, /metrics, /debug/retrofit belong to the gateway)' },
  { name: '/healthz with a trailing slash', lines: ['upstreams:', '  a: { command: node, path: /healthz/ }'], at: '2:29', text: 'is reserved' },
  {
    name: 'a path under a url upstream\'s discovery documents',
    lines: ['upstreams:', "  a: { url: 'http://127.0.0.1:1/mcp', path: /x }", '  b: { command: node, path: /x/.well-known/foo }'],
    at: '3:29',
    text: 'upstreams.b: path /x/.well-known/foo is under /x/.well-known/, which is reserved for the discovery documents of upstream "a" (a url: upstream at /x)',
  },
  { name: 'an empty segment', lines: ['upstreams:', '  a: { command: node, path: //y }'], at: '2:29', text: 'with no empty, "." or ".." segment' },
  { name: 'a dot segment', lines: ['upstreams:', '  a: { command: node, path: /z/./../metrics }'], at: '2:29', text: 'with no empty, "." or ".." segment' },
  {
    name: 'a default path that collides',
    lines: ['upstreams:', '  ui: { command: node }', 'ui: { enabled: true }'],
    at: '2:3',
    text: 'upstreams.ui: path /ui/mcp is under /ui/, which is reserved for the operator console (`ui.enabled`) (this is the default path /<name>/mcp)',
  },
];

describe('an upstream path may take no route of another upstream or of the gateway', () => {
  test.each(rows)('$name', async (row) => {
    const { dir, problems } = await problemsOf(`${row.lines.join('\n')}\n`);
    const shown = problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
    const here = shown.filter((s) => s.startsWith(`${join(dir, 'config.yaml')}:${row.at} `));
    expect(here, shown.join('\n')).toContainEqual(expect.stringContaining(row.text));
    expect(problems, shown.join('\n')).toHaveLength(1);
  });

  test('routes that only look alike are accepted', async () => {
    const yaml = [
      'upstreams:',
      "  a: { sse: 'http://127.0.0.1:1/sse', path: /x }",
      "  b: { url: 'http://127.0.0.1:1/mcp', path: /x/messages }",
      '  c: { command: node, path: /ui }',
      '  d: { command: node, path: /healthz/deep }',
      '  e: { command: node, path: /token }',
      '  f: { command: node, path: /.well-known-ish }',
      "  g: { url: 'http://127.0.0.1:1/mcp', path: /X }",
    ].join('\n');
    // Two url/sse upstreams: no root OAuth routes, so /token is free; the console is off, so /ui is free.
    const { loaded } = await load(`${yaml}\n`);
    expect(Object.keys(loaded.config.upstreams)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  test('an upstream at an OAuth route takes it: the route yields, and is no collision', async () => {
    const yaml = ['upstreams:', "  w: { url: 'http://127.0.0.1:1/mcp' }", '  a: { command: node, path: /token }', '  b: { command: node, path: /.well-known/oauth-protected-resource }'].join('\n');
    const { loaded } = await load(`${yaml}\n`);
    expect(Object.keys(loaded.config.upstreams)).toEqual(['w', 'a', 'b']);
  });
});
