/**
 * What every route module receives: the loaded config, compiled policies, logger, metrics and the rewrite hook.
 */
import type { GatewayConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { UpstreamPolicy } from '../policy/types.js';
import type { Rewriter } from '../pipeline/rewrite.js';

export interface GatewayDeps {
  readonly config: GatewayConfig;
  readonly policies: ReadonlyMap<string, UpstreamPolicy>;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly rewriter: Rewriter;
}
