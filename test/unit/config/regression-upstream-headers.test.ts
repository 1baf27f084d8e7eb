/**
 * Regression: an upstream's `headers:` took names and values that undici then refused on every request (a 500
 * RETROFIT_ERR_INTERNAL each time: "invalid header key", "invalid transfer-encoding header", a CR/LF in a
 * value), and headers the gateway sets itself (Host, Content-Length, hop-by-hop ones). Each is now a config
 * error at the header's FILE:LINE:COL: a name at its key, a value at its value.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { load, problemsOf } from './helpers.js';

const url = (headers: string): string => `upstreams:\n  f:\n    url: http://127.0.0.1:9000/mcp\n    headers:\n${headers}\n`;
const sse = (headers: string): string => `upstreams:\n  f:\n    sse: http://127.0.0.1:9000/sse\n    headers:\n${headers}\n`;

const rows: readonly { name: string; yaml: string; at: string; text: string }[] = [
  { name: 'a name with a space', yaml: url('      "bad header": x'), at: '5:7', text: 'upstreams.f.headers: invalid name "bad header": a header name is a token' },
  { name: 'a name with a colon', yaml: url('      "X-A:": x'), at: '5:7', text: 'invalid name "X-A:": a header name is a token' },
  { name: 'Content-Length', yaml: url('      Content-Length: "5"'), at: '5:7', text: 'upstreams.f.headers: "Content-Length" frames the request body' },
  { name: 'Transfer-Encoding, any case', yaml: url('      transfer-ENCODING: chunked'), at: '5:7', text: '"transfer-ENCODING" is hop-by-hop' },
  { name: 'Connection', yaml: url('      Connection: close'), at: '5:7', text: '"Connection" is hop-by-hop' },
  { name: 'Keep-Alive', yaml: url('      Keep-Alive: timeout=5'), at: '5:7', text: '"Keep-Alive" is hop-by-hop' },
  { name: 'TE', yaml: url('      TE: trailers'), at: '5:7', text: '"TE" is hop-by-hop' },
  { name: 'Trailer', yaml: url('      Trailer: X'), at: '5:7', text: '"Trailer" is hop-by-hop' },
  { name: 'Upgrade', yaml: url('      Upgrade: websocket'), at: '5:7', text: '"Upgrade" is hop-by-hop' },
  { name: 'Proxy-Authorization', yaml: url('      Proxy-Authorization: Basic x'), at: '5:7', text: '"Proxy-Authorization" is hop-by-hop (Proxy-*)' },
  { name: 'Expect', yaml: url('      Expect: 100-continue'), at: '5:7', text: '"Expect" frames the request body' },
  { name: 'Host', yaml: url('      Host: evil.example'), at: '5:7', text: `"Host" is set by the gateway to the upstream's host` },
  { name: 'Accept-Encoding', yaml: url('      Accept-Encoding: gzip'), at: '5:7', text: '"Accept-Encoding" is set by the gateway (identity)' },
  { name: 'Mcp-Session-Id', yaml: url('      Mcp-Session-Id: abc'), at: '5:7', text: '"Mcp-Session-Id" belongs to each session and request' },
  { name: 'a value with CR LF', yaml: url('      X-A: "a\\r\\nX-Injected: 1"'), at: '5:12', text: 'upstreams.f.headers.X-A: a header value holds only visible ASCII' },
  { name: 'a value with NUL', yaml: url('      X-A: "a\\0b"'), at: '5:12', text: 'a header value holds only visible ASCII' },
  { name: 'a value past 0xFF', yaml: url('      X-A: "5 €"'), at: '5:12', text: 'a header value holds only visible ASCII' },
  { name: 'on an sse upstream too', yaml: sse('      "bad header": x'), at: '5:7', text: 'invalid name "bad header"' },
];

describe('upstream headers are checked at load', () => {
  test.each(rows)('$name', async (row) => {
    const { dir, problems } = await problemsOf(row.yaml);
    const shown = problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
    const here = shown.filter((s) => s.startsWith(`${join(dir, 'config.yaml')}:${row.at} `));
    expect(here, shown.join('\n')).toContainEqual(expect.stringContaining(row.text));
    expect(problems).toHaveLength(1);
  });

  test('usual headers pass: credentials, custom names, tabs and obs-text in values, a name that only starts like an owned one', async () => {
    const { loaded } = await load(url('      Authorization: "Bearer abc"\n      X-Api-Key: "a\\tb é"\n      Hosts: x\n      Content-Type: application/json\n      "x!#$%&\'*+.^_`|~": y'));
    expect(loaded.config.upstreams.f).toMatchObject({ headers: { Authorization: 'Bearer abc', 'X-Api-Key': 'a\tb é', Hosts: 'x' } });
  });
});
