/**
 * One registry of every error the gateway produces: a stable code, the HTTP status a client sees,
 * the JSON-RPC error code in the body, and a message template. README.md's "Errors" table is checked
 * against this registry by test/unit/errors.test.ts.
 */

export interface ErrorSpec {
  readonly status: number;
  readonly rpcCode: number;
  readonly message: string;
}

export const ERRORS = {
  RETROFIT_ERR_UPSTREAM_UNREACHABLE: { status: 502, rpcCode: -32000, message: 'upstream "%s" is unreachable' },
  RETROFIT_ERR_UPSTREAM_RESET: { status: 502, rpcCode: -32000, message: 'upstream "%s" ended the connection before its answer was complete' },
  RETROFIT_ERR_UPSTREAM_TIMEOUT: { status: 504, rpcCode: -32001, message: 'upstream "%s" did not answer within %sms' },
  RETROFIT_ERR_UPSTREAM_PROTOCOL: { status: 502, rpcCode: -32002, message: 'upstream "%s" sent an invalid response' },
  RETROFIT_ERR_RESULT_TOO_LARGE: { status: 502, rpcCode: -32003, message: 'upstream "%s" sent a result larger than %s bytes' },
  RETROFIT_ERR_BODY_TOO_LARGE: { status: 413, rpcCode: -32600, message: 'request body exceeds %s bytes' },
  RETROFIT_ERR_PARSE: { status: 400, rpcCode: -32700, message: 'parse error: %s' },
  RETROFIT_ERR_INVALID_REQUEST: { status: 400, rpcCode: -32600, message: 'invalid request: %s' },
  RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, rpcCode: -32600, message: 'Content-Type must be application/json' },
  RETROFIT_ERR_UNAUTHORIZED: { status: 401, rpcCode: -32001, message: 'missing or invalid bearer token' },
  RETROFIT_ERR_FORBIDDEN_ORIGIN: { status: 403, rpcCode: -32600, message: 'origin "%s" is not allowed' },
  // -32000 and 403, as the MCP SDK's own DNS-rebinding protection answers a foreign Host.
  RETROFIT_ERR_FORBIDDEN_HOST: { status: 403, rpcCode: -32000, message: 'host "%s" is not allowed' },
  RETROFIT_ERR_SESSION_NOT_FOUND: { status: 404, rpcCode: -32001, message: 'session not found' },
  RETROFIT_ERR_SESSION_REQUIRED: { status: 400, rpcCode: -32600, message: 'Mcp-Session-Id header is required' },
  RETROFIT_ERR_METHOD_NOT_ALLOWED: { status: 405, rpcCode: -32600, message: 'HTTP method %s is not allowed here' },
  RETROFIT_ERR_NOT_FOUND: { status: 404, rpcCode: -32600, message: 'no route for %s' },
  RETROFIT_ERR_UPSTREAM_EXITED: { status: 502, rpcCode: -32000, message: 'upstream "%s" exited (%s)' },
  RETROFIT_ERR_DUPLICATE_ID: { status: 409, rpcCode: -32600, message: 'request id %s is already in flight in this session' },
  RETROFIT_ERR_PROTOCOL_VERSION_HEADER: { status: 400, rpcCode: -32000, message: 'unsupported protocol version: %s (supported versions: %s)' },
  RETROFIT_ERR_NOT_ACCEPTABLE: { status: 406, rpcCode: -32000, message: 'Accept must list %s' },
  RETROFIT_ERR_CONFLICT: { status: 409, rpcCode: -32000, message: '%s' },
  RETROFIT_ERR_ALREADY_INITIALIZED: { status: 400, rpcCode: -32600, message: 'the session is already initialized' },
  RETROFIT_ERR_TOO_MANY_SESSIONS: { status: 503, rpcCode: -32000, message: 'upstream "%s" already has %s sessions (maxSessions)' },
  RETROFIT_ERR_SHUTTING_DOWN: { status: 503, rpcCode: -32000, message: 'the gateway is shutting down' },
  RETROFIT_ERR_REQUEST_TIMEOUT: { status: 408, rpcCode: -32600, message: 'the %s not received within %sms (limits.%s)' },
  RETROFIT_ERR_HEADERS_TOO_LARGE: { status: 431, rpcCode: -32600, message: 'request headers exceed %s bytes' },
  // A child not reading its stdin past the bound of bytes waiting for it, or a session with more requests in
  // flight than the gateway keeps (the oldest is answered with this): the client may try again later.
  RETROFIT_ERR_UPSTREAM_BUSY: { status: 503, rpcCode: -32000, message: 'upstream "%s" is busy: %s' },
  // The gateway's own fault (the cause is logged, the text says only where): never the upstream's error.
  // 2026-07-28 clients (src/protocol/modern.ts): the codes and statuses that revision defines for these cases.
  RETROFIT_ERR_HEADER_MISMATCH: { status: 400, rpcCode: -32020, message: 'header mismatch: %s' },
  RETROFIT_ERR_UNSUPPORTED_VERSION: { status: 400, rpcCode: -32022, message: 'unsupported protocol version: %s (supported versions: %s)' },
  RETROFIT_ERR_MISSING_META: { status: 400, rpcCode: -32602, message: 'invalid params: %s' },
  RETROFIT_ERR_METHOD_NOT_FOUND: { status: 404, rpcCode: -32601, message: 'method not found: %s' },
  RETROFIT_ERR_REQUEST_STATE: { status: 400, rpcCode: -32602, message: 'invalid params: requestState %s' },
  RETROFIT_ERR_INPUT_RESPONSES: { status: 400, rpcCode: -32602, message: 'invalid params: inputResponses %s' },
  // The operator console (/ui, docs/console.md).
  RETROFIT_ERR_UI_NOT_FOUND: { status: 404, rpcCode: -32600, message: 'the console knows no %s' },
  RETROFIT_ERR_UI_REMOTE: { status: 403, rpcCode: -32600, message: 'the console serves loopback peers only (ui.remote is false)' },
  RETROFIT_ERR_UI_READ_ONLY: { status: 403, rpcCode: -32600, message: 'the console is read-only (ui.write is false)' },
  RETROFIT_ERR_UI_CSRF: { status: 403, rpcCode: -32600, message: 'refused as a possible cross-site request: %s' },
  RETROFIT_ERR_UI_APPLY_REJECTED: { status: 409, rpcCode: -32600, message: 'the config would not pass check; nothing was written' },
  RETROFIT_ERR_UI_BUSY: { status: 503, rpcCode: -32000, message: 'the console is busy: %s' },
  RETROFIT_ERR_UI_NOT_BUILT: { status: 503, rpcCode: -32000, message: 'the console\'s pages were not built: run npm run build' },
  RETROFIT_ERR_INTERNAL: { status: 500, rpcCode: -32603, message: 'internal error: %s' },
  RETROFIT_ERR_CONFIG: { status: 500, rpcCode: -32603, message: '%s' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

function format(template: string, args: readonly unknown[]): string {
  let i = 0;
  return template.replace(/%s/g, () => String(args[i++] ?? ''));
}

/** An error with a stable code; `cause` keeps the underlying failure. */
export class RetrofitError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly rpcCode: number;

  /** Members of the error's `data` beside `code` that a protocol defines for it (`supported` of -32022). */
  readonly data: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, args: readonly unknown[] = [], options?: { cause?: unknown; data?: Readonly<Record<string, unknown>> }) {
    const spec: ErrorSpec = ERRORS[code];
    super(format(spec.message, args), options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetrofitError';
    this.code = code;
    this.status = spec.status;
    this.rpcCode = spec.rpcCode;
    this.data = options?.data;
  }

  /** The JSON-RPC error response body for this error. */
  toJsonRpc(id: string | number | null = null): { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data: { code: ErrorCode } } } {
    return { jsonrpc: '2.0', id, error: { code: this.rpcCode, message: this.message, data: { ...this.data, code: this.code } } };
  }
}
