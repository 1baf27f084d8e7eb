/**
 * MCP protocol revisions and the rule that decides which one governs a request.
 * Revisions are ISO dates, so they compare as strings.
 */

export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type KnownRevision = (typeof REVISIONS)[number];

/** Assumed when nothing says otherwise (the spec's fallback for a missing header). */
export const DEFAULT_REVISION = '2025-03-26';
/** The `_meta` key that carries the revision on 2026-07-28 requests. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

/**
 * The three shapes of structured output:
 * - `modern`: 2026-07-28 and later; any schema root, any structuredContent value.
 * - `object-only`: 2025-06-18 and 2025-11-25; object roots only.
 * - `none`: 2025-03-26 and older; no outputSchema or structuredContent at all.
 */
export type Era = 'modern' | 'object-only' | 'none';

const REVISION_RE = /^\d{4}-\d{2}-\d{2}$/;

/** True when the string looks like a protocol revision (a date). */
export function isRevision(value: unknown): value is string {
  return typeof value === 'string' && REVISION_RE.test(value);
}

export function eraOf(revision: string): Era {
  if (revision >= '2026-07-28') return 'modern';
  if (revision >= '2025-06-18') return 'object-only';
  return 'none';
}

/** Where the governing revision came from (for logs and tests). */
export type RevisionSource = 'meta' | 'header' | 'session' | 'default';

export interface RevisionInputs {
  /** `params._meta["io.modelcontextprotocol/protocolVersion"]`, if present. */
  readonly meta?: unknown;
  /** The `MCP-Protocol-Version` request header, if present. */
  readonly header?: string | undefined;
  /** The `protocolVersion` of this session's InitializeResult, if known. */
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
