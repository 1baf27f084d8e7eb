// What the conformance suite's reference server serves only on its 2026-07-28 (stateless) path, in the form a
// server of the session revisions has it, for `modern.mjs`: added to the reference's own createMcpServer()
// (an SDK v1 McpServer) before it goes on stdio behind the gateway.
//
// The reference answers these 2026-07-28 requests by hand (`resultType: "input_required"` with named
// `inputRequests`, a `requestState`, -32021 when a capability is missing). A server of the session revisions
// cannot: it asks the client with real requests (sampling/createMessage, elicitation/create, roots/list) during
// the call, and the gateway turns those into `input_required` for a 2026-07-28 client. So each tool here asks
// what the reference's asks, with the same messages and schemas, and answers with the same text once it has
// the answers. The names of the input requests, the `requestState` and its integrity are then the gateway's.
//
// The SDK's pieces are passed in (`types`: the server's own @modelcontextprotocol/sdk/types.js), so this file
// resolves nothing from this repository's node_modules and the server keeps one copy of the SDK and of zod.

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const CONFIRM_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const field = (answer, key) => (typeof answer?.content?.[key] === 'string' ? answer.content[key] : 'unknown');

/** Register the 2026-07-28-only tools, prompt and resource of the reference server on `mcpServer`. */
export function addModernFixtures(mcpServer, types) {
  const server = mcpServer.server;
  const ask = (extra, method, params) => extra.sendRequest({ method, params }, types.ResultSchema);
  const elicit = (extra, message, requestedSchema) => ask(extra, 'elicitation/create', { message, requestedSchema });
  const sample = (extra, prompt, maxTokens) =>
    ask(extra, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens });
  const roots = (extra) => ask(extra, 'roots/list', {});
  const tool = (name, description, handler) => mcpServer.registerTool(name, { description }, handler);

  // Needs sampling: refused with MissingRequiredClientCapabilityError when the client did not declare it. A tool
  // callback's throw becomes an isError result in McpServer, so the check sits in front of its tools/call handler.
  tool('test_missing_capability', 'Test tool requiring sampling', async () => text('Success'));
  const handlers = server._requestHandlers;
  const callTool = handlers?.get('tools/call');
  if (typeof callTool !== 'function') throw new Error('modern-fixtures: the McpServer has no tools/call handler to wrap');
  handlers.set('tools/call', (request, extra) => {
    if (request.params?.name === 'test_missing_capability' && !server.getClientCapabilities()?.sampling) {
      const error = new Error('MissingRequiredClientCapabilityError');
      error.code = -32021;
      error.data = { requiredCapabilities: { sampling: {} } };
      throw error;
    }
    return callTool(request, extra);
  });

  tool('test_input_required_result_elicitation', 'MRTR: asks the client for its name (elicitation)', async (extra) => {
    const answer = await elicit(extra, 'What is your name?', NAME_SCHEMA);
    return text(`Hello, ${field(answer, 'name')}!`);
  });
  tool('test_input_required_result_sampling', 'MRTR: asks the client for a completion (sampling)', async (extra) => {
    const answer = await sample(extra, 'What is the capital of France?', 100);
    return text(`Sampling result: ${typeof answer?.content?.text === 'string' ? answer.content.text : 'no response'}`);
  });
  tool('test_input_required_result_list_roots', 'MRTR: asks the client for its roots', async (extra) => {
    const answer = await roots(extra);
    return text(`Found ${Array.isArray(answer?.roots) ? answer.roots.length : 0} root(s)`);
  });
  tool('test_input_required_result_request_state', 'MRTR: asks for a confirmation; the answer carries the request state', async (extra) => {
    for (let round = 0; round < 3; round++) {
      const answer = await elicit(extra, 'Please confirm', CONFIRM_SCHEMA);
      if (answer?.content?.ok === true) return text('state-ok: requestState validated');
    }
    return { ...text('not confirmed'), isError: true };
  });
  tool('test_input_required_result_multiple_inputs', 'MRTR: asks elicitation, sampling and roots at once', async (extra) => {
    const [name, greeting, listed] = await Promise.all([
      elicit(extra, 'What is your name?', NAME_SCHEMA),
      sample(extra, 'Generate a greeting', 50),
      roots(extra),
    ]);
    const said = typeof greeting?.content?.text === 'string' ? greeting.content.text : 'Hello there!';
    return text(`Name: ${field(name, 'name')}; Greeting: ${said}; Roots: ${Array.isArray(listed?.roots) ? listed.roots.length : 0}`);
  });
  tool('test_input_required_result_multi_round', 'MRTR: asks twice, one question after the other', async (extra) => {
    const step1 = await elicit(extra, 'Step 1: What is your name?', NAME_SCHEMA);
    const step2 = await elicit(extra, 'Step 2: What is your favorite color?', {
      type: 'object',
      properties: { color: { type: 'string' } },
      required: ['color'],
    });
    return text(`Multi-round complete for ${field(step1, 'name')} who likes ${field(step2, 'color')}`);
  });
  tool('test_input_required_result_tampered_state', 'MRTR: asks for a confirmation (the state that names the wait is checked)', async (extra) => {
    await elicit(extra, 'Please confirm', CONFIRM_SCHEMA);
    return text('integrity-ok: state verified');
  });
  tool('test_input_required_result_capabilities', 'MRTR: asks only what the client declared it can answer', async (extra) => {
    const caps = server.getClientCapabilities() ?? {};
    const asked = [];
    if (caps.elicitation) {
      asked.push(['elicit_input', elicit(extra, 'Elicitation input', { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] })]);
    }
    if (caps.sampling) asked.push(['sample_input', sample(extra, 'Sample request', 50)]);
    if (asked.length === 0) return text('No supported capabilities declared');
    await Promise.all(asked.map(([, answer]) => answer));
    return text(`capabilities-ok: received ${asked.map(([key]) => key).join(',')}`);
  });
  tool('test_streaming_elicitation', 'Diagnostic tool validating response progress streams', async (extra) => {
    const progressToken = extra._meta?.progressToken ?? 'token-abc';
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 50, total: 100 } });
    return text('Streaming complete');
  });
  // A server of the session revisions logs unless logging/setLevel said otherwise; no revision-2026 `logLevel`
  // reaches it (the gateway holds the envelope), so whether a 2026-07-28 client sees this is the gateway's call.
  tool('test_logging_tool', 'Diagnostic logging validator tool', async () => {
    await server.sendLoggingMessage({ level: 'info', data: 'Diagnostic trace logging activated' });
    return text('Logging evaluated');
  });
  // The reference serves these hooks without listing them; a session server lists what it serves.
  tool('test_trigger_tool_change', 'Diagnostic hook: announces a tool list change', async () => {
    mcpServer.sendToolListChanged();
    return text('Mutation triggered');
  });
  tool('test_trigger_prompt_change', 'Diagnostic hook: announces a prompt list change', async () => {
    mcpServer.sendPromptListChanged();
    return text('Mutation triggered');
  });

  mcpServer.registerPrompt('test_input_required_result_prompt', { description: 'MRTR: prompt that requires elicitation input' }, async (extra) => {
    const answer = await elicit(extra, 'What context should the prompt use?', {
      type: 'object',
      properties: { context: { type: 'string' } },
      required: ['context'],
    });
    return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${field(answer, 'context')}` } }] };
  });

  mcpServer.registerResource(
    'Stateless Static Text',
    'test://stateless-static-text',
    { description: 'A static text resource served on the draft path', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Static text content from the stateless draft path.' }] }),
  );
}
