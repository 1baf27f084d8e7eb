/**
 * A reload with stdio sessions open: the sessions and their children survive it (same pid, same memory), and
 * a lowered limits.maxResultBytes applies to sessions opened afterwards, whose over-long answers become a
 * clean RESULT_TOO_LARGE error, while the session opened before keeps the bound it was started with.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { startServe } from '../helpers/serve.js';

const config = (maxResultBytes: number, share = false): string => `
limits: { maxResultBytes: ${maxResultBytes} }
upstreams:
  local:
    command: ${process.execPath}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
    share: ${share}
`;

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'stdio-reload', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  onTestFinished(() => client.close());
  return client;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>): string => (result.content as { text: string }[])[0]?.text ?? '';

describe('reload with stdio sessions open', () => {
  it('keeps the sessions and their children; a lower result bound applies to new sessions', async () => {
    const gw = await startServe(config(1_000_000));
    const url = `${gw.origin}/local/mcp`;
    const before = await connect(url);
    const pid = text(await before.callTool({ name: 'pid', arguments: {} }));
    await before.callTool({ name: 'remember', arguments: { value: 'kept' } });

    gw.write(config(2000));
    expect(await gw.sighup()).toMatchObject({ ok: true, restartRequired: [] });

    // Same child, same memory, old bound.
    expect(text(await before.callTool({ name: 'pid', arguments: {} }))).toBe(pid);
    expect(text(await before.callTool({ name: 'recall', arguments: {} }))).toBe('["kept"]');
    expect(text(await before.callTool({ name: 'huge', arguments: { bytes: 5000 } }))).toHaveLength(5000);

    const after = await connect(url);
    expect(text(await after.callTool({ name: 'pid', arguments: {} }))).not.toBe(pid);
    await expect(after.callTool({ name: 'huge', arguments: { bytes: 5000 } })).rejects.toThrow(/larger than 2000 bytes/);
  });

  it('share: true: sessions after a reload that changes the child get a new shared child; the old one serves its sessions', async () => {
    const gw = await startServe(config(1_000_000, true));
    const url = `${gw.origin}/local/mcp`;
    const first = await connect(url);
    const second = await connect(url);
    const pid = text(await first.callTool({ name: 'pid', arguments: {} }));
    expect(text(await second.callTool({ name: 'pid', arguments: {} }))).toBe(pid);

    gw.write(config(2000, true));
    expect(await gw.sighup()).toMatchObject({ ok: true, restartRequired: [] });

    const after = await connect(url);
    expect(text(await after.callTool({ name: 'pid', arguments: {} }))).not.toBe(pid);
    await expect(after.callTool({ name: 'huge', arguments: { bytes: 5000 } })).rejects.toThrow(/larger than 2000 bytes/);
    expect(text(await first.callTool({ name: 'pid', arguments: {} }))).toBe(pid);
    expect(text(await first.callTool({ name: 'huge', arguments: { bytes: 5000 } }))).toHaveLength(5000);
  });
});
