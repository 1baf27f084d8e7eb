// The suite's client command when client scenarios run through the gateway: `node client-shim.mjs SERVER_URL`.
// It starts a gateway in front of the scenario's server (a `url:` upstream served at the same path), runs the
// reference client (RETROFIT_CONFORMANCE_CLIENT, a JSON argv) against the gateway's URL with the suite's
// environment (MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_CONTEXT), and exits with the client's code.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startGateway } from './suite.mjs';

const serverUrl = process.argv.at(-1);
const client = JSON.parse(process.env.RETROFIT_CONFORMANCE_CLIENT ?? '[]');
if (serverUrl === undefined || !/^https?:\/\//.test(serverUrl) || client.length === 0) {
  process.stderr.write('usage: RETROFIT_CONFORMANCE_CLIENT=\'["node","client.js"]\' node client-shim.mjs SERVER_URL\n');
  process.exit(2);
}
const scenario = (process.env.MCP_CONFORMANCE_SCENARIO ?? 'scenario').replace(/[^A-Za-z0-9._-]/g, '_');
const url = new URL(serverUrl);
const logs = process.env.RETROFIT_CONFORMANCE_LOGS ?? process.cwd();
const gateway = await startGateway({ url: serverUrl }, url.pathname === '/' ? '/mcp' : url.pathname, join(logs, `${scenario}.gateway.log`));
const gatewayUrl = `${gateway.url}${url.search}`;
process.stderr.write(`client-shim: ${serverUrl} through ${gatewayUrl}\n`);

// The client's output is the suite's to record, as without the shim.
const child = spawn(client[0], [...client.slice(1), gatewayUrl], { stdio: 'inherit', env: process.env });
const code = await new Promise((resolve) => child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
await gateway.stop();
process.exit(code);
