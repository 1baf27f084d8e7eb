/**
 * Opens N MCP sessions and keeps them idle until SIGTERM, in its own process: initialize +
 * notifications/initialized per session (32 at a time), then optionally a GET stream per session (as SDK
 * clients open one), waiting at most WAIT_MS for their headers. Prints `ready <sessions> <streams> <failures>`.
 * usage: node bench/lib/idle-sessions.js URL N get|noget WAIT_MS
 */
const [url, nText, mode, waitText] = process.argv.slice(2);
const n = Number(nText);
const waitMs = Number(waitText ?? 15000);
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const ids = [];
let failures = 0;
let firstFailure;

async function open(i) {
  const init = { jsonrpc: '2.0', id: i, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'idle', version: '1' } } };
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(init) });
  const text = await res.text();
  const id = res.headers.get('mcp-session-id');
  if (!res.ok || !id) throw new Error(`initialize: ${res.status} ${text.slice(0, 120)}`);
  const note = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': id }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await note.text();
  ids.push(id);
}

let next = 0;
async function opener() {
  while (next < n) {
    const i = next++;
    try {
      await open(i);
    } catch (err) {
      failures++;
      firstFailure ??= err.message;
    }
  }
}
await Promise.all(Array.from({ length: 32 }, opener));

let streams = 0;
const controllers = [];
if (mode === 'get') {
  const opened = ids.map(async (id) => {
    const controller = new AbortController();
    controllers.push(controller);
    const res = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, signal: controller.signal });
    if (res.ok) streams++;
    // Keep the body open and unread: an idle server stream.
  });
  await Promise.race([Promise.allSettled(opened), new Promise((r) => setTimeout(r, waitMs))]);
}
console.log(`ready ${ids.length} ${streams} ${failures}${firstFailure ? ` ${firstFailure}` : ''}`);
process.on('SIGTERM', () => {
  for (const c of controllers) c.abort();
  process.exit(0);
});
setInterval(() => {}, 1 << 30);
