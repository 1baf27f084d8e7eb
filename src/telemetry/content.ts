/**
 * The text of a tool result that opted-in content capture records (gen_ai.tool.call.result): its text blocks,
 * else its structuredContent as JSON. Plain data in and out, so an offload worker computes it for a result
 * only it holds parsed (src/pipeline/offload/worker.ts) exactly as the span does for one held here.
 */
import { isJsonObject, type JsonObject } from '../json.js';

/** The result's text blocks joined by newlines; without any, its structuredContent as JSON; else ''. */
export function capturedText(result: JsonObject): string {
  const texts = Array.isArray(result.content) ? result.content.flatMap((b) => (isJsonObject(b) && b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])) : [];
  return texts.length > 0 ? texts.join('\n') : result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : '';
}
