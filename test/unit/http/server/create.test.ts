/**
 * Regression: the node:http server was built with headersTimeout but not requestTimeout, so Node compared
 * limits.headersTimeoutMs with its own default requestTimeout (300000) and threw a RangeError at start for any
 * larger value, though the config (headers ≤ whole request) was valid.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_LIMITS } from '../../../../src/config/types.js';
import { gatewayServer } from '../../../../src/http/server/create.js';
import { createLogger } from '../../../../src/log.js';
import { gatewayConfig, httpUpstream } from '../../../helpers/config.js';

describe('the gateway server', () => {
  test('takes a headersTimeoutMs above 300000 when requestTimeoutMs is larger still', async () => {
    const { config } = gatewayConfig([httpUpstream('a', 'http://127.0.0.1:1/mcp')], { limits: { ...DEFAULT_LIMITS, headersTimeoutMs: 400_000, requestTimeoutMs: 600_000 } });
    const app = gatewayServer({ config, logger: createLogger({ level: 'silent' }), nextId: () => '1' });
    try {
      expect(app.server.headersTimeout).toBe(400_000);
      expect(app.server.requestTimeout).toBe(600_000);
    } finally {
      await app.close();
    }
  });
});
