/**
 * A raw NDJSON stdio server, written inline as a `node -e` script, for tests that need a child to send exact
 * bytes: it answers `initialize` (2025-06-18, a tools capability) and hands every other request to `onRequest`,
 * the JavaScript source of a function `(message, out) => void`; `out(value)` writes one line (a string as is,
 * anything else as JSON). Notifications are ignored.
 */

/** The InitializeResult the raw child answers with. */
export const RAW_INIT_RESULT = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } };

/** The `node -e` source of a raw child; `init` replaces its answer to initialize (same signature as onRequest). */
export function rawChild(onRequest: string, init?: string): string {
  const initialize = init ?? `(m, out) => out({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(RAW_INIT_RESULT)} })`;
  return `
    const out = (v) => process.stdout.write((typeof v === 'string' ? v : JSON.stringify(v)) + '\\n');
    const onInitialize = ${initialize};
    const onRequest = ${onRequest};
    require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
      const m = JSON.parse(line);
      if (m.id === undefined || typeof m.method !== 'string') return;
      if (m.method === 'initialize') return onInitialize(m, out);
      onRequest(m, out);
    });`;
}

/** The `args` of a stdio upstream running `script` with the gateway's own node. */
export function rawArgs(script: string): string[] {
  return ['-e', script];
}
