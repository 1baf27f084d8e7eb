/**
 * MCP protocol revisions, their eras, and the rule that decides which one governs a request. This folder is
 * the only place that knows revisions: everything else asks it. Revisions are ISO dates, so they compare as
 * strings.
 */

/** Every revision the gateway knows, oldest first. */
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type KnownRevision = (typeof REVISIONS)[number];

/** Assumed when nothing says otherwise (the spec's fallback for a missing header). */
export const DEFAULT_REVISION = '2025-03-26';
/** The newest revision with sessions and initialize (what a bridged client is answered when it asked for more). */
export const LATEST_STATEFUL_REVISION = '2025-11-25';
/** The first revision with outputSchema and structuredContent. */
export const FIRST_STRUCTURED_REVISION = '2025-06-18';
/** The first revision without sessions (server/discover, `_meta` on every request, no GET streams). */
export const FIRST_STATELESS_REVISION = '2026-07-28';
/** The first revision of Streamable HTTP, whose SSE streams carry event ids a client resumes with `Last-Event-ID`. */
export const FIRST_RESUMABLE_REVISION = '2025-03-26';
/** The first revision whose clients take an SSE priming event (an event with an id and empty data). */
export const FIRST_PRIMING_REVISION = '2025-11-25';
/** The first revision whose clients send `MCP-Protocol-Version` on every request after initialize. */
export const FIRST_HEADER_REVISION = '2025-06-18';
/** The revision the gateway's `try` and `check --probe` assume for a client when none is given. */
export const DEFAULT_CLIENT_REVISION = LATEST_STATEFUL_REVISION;

/** The `_meta` key that carries the revision on 2026-07-28 requests. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

/**
 * Session-based revisions a gateway-owned Streamable HTTP session accepts in `MCP-Protocol-Version`, newest
 * first (the SDK servers also accept the 2024-10-07 draft; so do we, as 2024-11-05 in all but name).
 */
export const STATEFUL_REVISIONS: readonly string[] = [...REVISIONS.filter((r) => r < FIRST_STATELESS_REVISION)].reverse();
const ACCEPTED_HEADER_VALUES = new Set([...STATEFUL_REVISIONS, '2024-10-07']);

/**
 * The three shapes of structured output:
 * - `modern`: 2026-07-28 and later; any schema root, any structuredContent value.
 * - `object-only`: 2025-06-18 and 2025-11-25; object roots only.
 * - `none`: 2025-03-26 and older; no outputSchema or structuredContent at all.
 */
export type Era = 'modern' | 'object-only' | 'none';

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
/** The digits' positions in `dddd-dd-dd`. */
const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9] as const;

/**
 * True when the string looks like a protocol revision (a date: `dddd-dd-dd`). Asked several times per
 * request: char codes, not a regular expression.
 */
export function isRevision(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 10 || value.charCodeAt(4) !== 0x2d || value.charCodeAt(7) !== 0x2d) return false;
  for (const i of DIGITS) if (!isDigit(value.charCodeAt(i))) return false;
  return true;
}

/** True for a revision of REVISIONS. */
export function isKnownRevision(value: unknown): value is KnownRevision {
  return typeof value === 'string' && (REVISIONS as readonly string[]).includes(value);
}

/** True when a gateway-owned session accepts this `MCP-Protocol-Version` value. */
export function acceptsHeaderRevision(value: string): boolean {
  return ACCEPTED_HEADER_VALUES.has(value);
}

export function eraOf(revision: string): Era {
  if (revision >= FIRST_STATELESS_REVISION) return 'modern';
  if (revision >= FIRST_STRUCTURED_REVISION) return 'object-only';
  return 'none';
}

/** True for revisions without sessions (2026-07-28 and later). */
export function isStateless(revision: string): boolean {
  return revision >= FIRST_STATELESS_REVISION;
}

/** True when clients of this revision can resume an SSE stream they were given event ids on. */
export function isResumable(revision: string): boolean {
  return revision >= FIRST_RESUMABLE_REVISION && revision < FIRST_STATELESS_REVISION;
}

/** True when clients of this revision take a priming event (id, empty data) at the start of an SSE answer. */
export function takesPrimingEvent(revision: string): boolean {
  return revision >= FIRST_PRIMING_REVISION && revision < FIRST_STATELESS_REVISION;
}

/** Where the governing revision came from (for logs and tests). */
export type RevisionSource = 'meta' | 'header' | 'session' | 'default';

export interface RevisionInputs {
  /** `params._meta["io.modelcontextprotocol/protocolVersion"]`, if present. */
  readonly meta?: unknown;
  /** The `MCP-Protocol-Version` request header, if present. */
  readonly header?: string | undefined;
  /** The `protocolVersion` of this session's InitializeResult as the gateway answered it, if known. */
  readonly session?: string | undefined;
}

/** The contract's rule: `_meta`, then header, then the session's InitializeResult, else 2025-03-26. */
export function detectRevision(inputs: RevisionInputs): { revision: string; source: RevisionSource } {
  if (isRevision(inputs.meta)) return { revision: inputs.meta, source: 'meta' };
  if (isRevision(inputs.header)) return { revision: inputs.header, source: 'header' };
  if (isRevision(inputs.session)) return { revision: inputs.session, source: 'session' };
  return { revision: DEFAULT_REVISION, source: 'default' };
}

/**
 * True when `_meta` and the `MCP-Protocol-Version` header both name a revision and the two differ. The
 * gateway then changes nothing: the upstream answers (a 2026-07-28 server with 400 / -32020).
 */
export function revisionsDisagree(inputs: Pick<RevisionInputs, 'meta' | 'header'>): boolean {
  return isRevision(inputs.meta) && isRevision(inputs.header) && inputs.meta !== inputs.header;
}
