/**
 * The JSON the console's API answers (docs/console.md), as the pages read it: the server's own wire types
 * (src/console/wire.ts, imported type-only), plus what only the pages need.
 */
import type { SeriesName, TotalName } from '../../src/console/wire.js';

export type {
  ApplyReply,
  Failure,
  Json,
  LearnReply,
  LearnTool,
  Overview,
  Reason,
  SeriesName,
  SessionRow,
  SessionsReply,
  Success,
  ToolDetail,
  ToolRow,
  ToolsReply,
  Upstream,
  UpstreamsReply,
} from '../../src/console/wire.js';

/** The outcomes a tool's totals count, in the order the pages show them. */
export const TOTALS = ['native', 'extracted', 'invalid', 'unparseable', 'shadow'] as const satisfies readonly TotalName[];
/** The outcomes a tool's series chart, in the order the pages draw them. */
export const SERIES = ['extracted', 'validated', 'invalid', 'unparseable', 'shadow'] as const satisfies readonly SeriesName[];
