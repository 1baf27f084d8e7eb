/**
 * The attribute and metric names the gateway emits, from @opentelemetry/semantic-conventions where it has
 * them (stable ones from the main entry, the MCP and GenAI ones — still in development — from `incubating`),
 * in one place so a rename upstream is one edit here. The `mcp_retrofit.*` names are the gateway's own.
 */
export { ATTR_ERROR_TYPE, ATTR_NETWORK_TRANSPORT, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
export {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_SERVER_OPERATION_DURATION,
  METRIC_MCP_SERVER_SESSION_DURATION,
} from '@opentelemetry/semantic-conventions/incubating';

/** The gateway's own attributes: the retrofit of a tools/call answer, the client profile, the upstream. */
export const ATTR_RETROFIT_OUTCOME = 'mcp_retrofit.outcome';
export const ATTR_RETROFIT_FORMAT = 'mcp_retrofit.format';
export const ATTR_RETROFIT_MODE = 'mcp_retrofit.mode';
export const ATTR_RETROFIT_FAILURES = 'mcp_retrofit.failures';
export const ATTR_RETROFIT_PROFILE = 'mcp_retrofit.profile';
export const ATTR_RETROFIT_UPSTREAM = 'mcp_retrofit.upstream';
/** Time the retrofit took (ms), the text it read (characters) and the result the client got (JSON bytes). */
export const ATTR_RETROFIT_DURATION_MS = 'mcp_retrofit.duration_ms';
export const ATTR_RETROFIT_TEXT_BYTES = 'mcp_retrofit.text_bytes';
export const ATTR_RETROFIT_RESULT_BYTES = 'mcp_retrofit.result_bytes';
