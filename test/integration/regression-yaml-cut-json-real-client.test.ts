/**
 * A `yaml` tool whose upstream answers with cut-off JSON, through the gateway to a real v1 SDK client: the
 * line fallback used to read `{"a": 1, "b":` as the pair `{"a"` → `1, "b":` and serve it as structuredContent.
 * The text is now no reading, so `onInvalid: error` gives the client a tool error with the text kept.
 */
import { expect, it } from 'vitest';
import { connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

it('a v1 client gets a tool error, not a made-up object, for cut-off JSON under a yaml tool', async () => {
  const gw = await startStdioGateway({ tools: { echo: { outputSchema: { type: 'object' }, extract: { format: 'yaml' } } } });
  const client = await connectV1(gw.url, 'yaml-client');
  await client.listTools();
  const result = await client.callTool({ name: 'echo', arguments: { text: '{"a": 1, "b":' } });
  expect(result.structuredContent).toBeUndefined();
  expect(result.isError).toBe(true);
  expect(firstText(result)).toBe('{"a": 1, "b":');
});
