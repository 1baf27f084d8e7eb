/**
 * The `headers:` of an upstream in the config schema: what undici (the gateway's HTTP client) would refuse on
 * every request, and what the gateway sets itself, are config errors at the header instead of a 500 on each
 * request. Names are HTTP tokens (RFC 9110 §5.1); values hold visible ASCII, spaces, tabs and obs-text bytes,
 * never CR, LF, NUL or another control character (§5.5: what Node and undici check). Imports nothing: the
 * schema generator transpiles it.
 */

/** `host` → `[Hh][Oo][Ss][Tt]`: the pattern keyword has no flags, and header names are case-insensitive. */
const anyCase = (name: string): string => name.replace(/[a-z]/g, (c) => `[${c.toUpperCase()}${c}]`);
const named = (names: readonly string[], prefix = false): string => `^(?:${names.map(anyCase).join('|')})${prefix ? '' : '$'}`;

/**
 * Hop-by-hop header names (RFC 9110 §7.6.1, and HTTP2-Settings), besides any `Proxy-*`: about one connection.
 * The one list: the proxy drops them between hops too (src/upstream/headers.ts).
 */
export const HOP_BY_HOP_NAMES: readonly string[] = ['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings'];

/** Header names the gateway owns, by why (the message a configured one gets). */
const OWNED: readonly { readonly names: readonly string[]; readonly prefix?: boolean; readonly why: string }[] = [
  { names: ['host'], why: "is set by the gateway to the upstream's host (the `url` or `sse` URL chooses it)" },
  { names: ['content-length', 'expect'], why: 'frames the request body, which the gateway sends whole and sizes itself' },
  {
    names: HOP_BY_HOP_NAMES,
    why: "is hop-by-hop: it is about one connection, and the gateway's HTTP client runs its own",
  },
  { names: ['proxy-'], prefix: true, why: "is hop-by-hop (Proxy-*): it is about one connection, and the gateway's HTTP client runs its own" },
  { names: ['accept-encoding'], why: 'is set by the gateway (identity), so that answers can be read and rewritten' },
  { names: ['mcp-session-id', 'mcp-protocol-version'], why: 'belongs to each session and request: the client and the gateway set it' },
];

/** An HTTP token (RFC 9110 §5.6.2). */
const TOKEN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
/** A field value as Node and undici accept it: tab, visible ASCII and space, obs-text. */
const VALUE = '^[\\t\\x20-\\x7e\\x80-\\xff]*$';

export const headers = {
  type: 'object',
  propertyNames: {
    pattern: TOKEN,
    patternErrorMessage: "a header name is a token: letters, digits and ! # $ % & ' * + - . ^ _ ` | ~ (no spaces, colons or other separators)",
    allOf: OWNED.map(({ names, prefix, why }) => ({ not: { pattern: named(names, prefix) }, errorMessage: why })),
  },
  additionalProperties: {
    type: 'string',
    pattern: VALUE,
    patternErrorMessage: 'a header value holds only visible ASCII, spaces, tabs and bytes 0x80-0xFF: no CR, LF, NUL or other control character',
  },
  description:
    "url/sse upstream: headers added to every request sent to the upstream (they override the client's). Names are HTTP tokens; values hold no CR, LF or other control character; Host, Content-Length, Expect, Accept-Encoding, Mcp-Session-Id, MCP-Protocol-Version and hop-by-hop headers (Connection, Keep-Alive, TE, Trailer, Transfer-Encoding, Upgrade, HTTP2-Settings, Proxy-*) are the gateway's.",
};
