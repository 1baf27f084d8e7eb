/**
 * The JSON-RPC methods MCP defines, in every revision the gateway knows (2024-11-05 … 2026-07-28), both ways.
 * A metric labelled by method takes its label from here: a client chooses the method it sends, so anything
 * else is counted as `other` and a client cannot grow the metrics without bound.
 */
import { isKnownRevision } from './era.js';

/** Every MCP method name: requests and notifications, client → server and server → client. */
export const MCP_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'subscriptions/listen',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/directory/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/roots/list_changed',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/tasks/status',
  'notifications/elicitation/complete',
  'notifications/subscriptions/acknowledged',
]);

/** The label for a method a peer sent: the method when MCP defines it, else `other`. */
export function methodLabel(method: string): string {
  return MCP_METHODS.has(method) ? method : 'other';
}

/** The label for a revision a request named: a revision the gateway knows, else `other`. */
export function revisionLabel(revision: string): string {
  return isKnownRevision(revision) ? revision : 'other';
}
