/**
 * How long a tool name the gateway keeps state under. Tool names are chosen by clients (a `tools/call` may name
 * anything) and by upstreams (a listing may hold any string): per-tool state keyed by a name of any length would
 * let either grow the gateway's memory by the size of a request or a listing per entry. The spec says a tool
 * name SHOULD be 1 to 128 characters; a longer one is served as any other, but gets no state of its own: its
 * metrics count under `tool="other"`, the console neither tracks nor lists it, and what tools/list taught the
 * engine of it is not remembered past that listing (tools/call then decides by the value).
 */
export const TOOL_NAME_CHARS = 128;

/** True when per-tool state may be kept under `name` (see TOOL_NAME_CHARS). */
export function keepsState(name: string): boolean {
  return name.length <= TOOL_NAME_CHARS;
}
