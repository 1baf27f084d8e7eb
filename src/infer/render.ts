/**
 * The `tools:` block infer prints, to paste under an upstream: one entry per tool that got one, each with
 * its notes as comments above it, and comment lines for the tools that got none. Small collections and
 * lists of names are written in flow style (`{ type: string }`, `[ a, b ]`) so the schema reads at a
 * glance; the text parses back to exactly the entries.
 */
import { Document, isCollection, isScalar, isSeq, visit } from 'yaml';
import { literalValue } from '../config/expand.js';
import { literalKey } from '../policy/match.js';
import type { ToolInference } from './tool.js';

/** Collections whose JSON is at most this long are written on one line. */
const FLOW_MAX = 72;

function comment(line: string, indent: string): string {
  // A note may quote upstream text: one comment line each, whatever it holds.
  return `${indent}# ${line.replace(/[\r\n]+/g, ' ')}`.trimEnd();
}

/** Tool names are shown as they are when plain, JSON-quoted otherwise. */
function shown(tool: string): string {
  return /^[\w./-]+$/.test(tool) ? tool : JSON.stringify(tool);
}

function collectionsIn(path: readonly unknown[]): number {
  return path.filter((p) => isCollection(p)).length;
}

/**
 * One entry as YAML lines, indented under `tools:`; its strings literal (`$${` for `${`: see config/expand.ts),
 * and its key the tool's name with any glob character escaped, so it governs that tool alone.
 */
function entryLines(inference: ToolInference): string[] {
  const doc = new Document({ [literalKey(inference.tool)]: literalValue(inference.entry) });
  const flow = (node: unknown, path: readonly unknown[]): symbol | undefined => {
    // The tool's map and its entry stay in block style; below them, short collections go on one line.
    if (!isCollection(node) || collectionsIn(path) < 2) return undefined;
    // A list of names (`required`, `enum`) reads best on one line, however long.
    const scalars = isSeq(node) && node.items.every((item) => isScalar(item));
    if (!scalars && JSON.stringify(node.toJSON()).length > FLOW_MAX) return undefined;
    node.flow = true;
    return visit.SKIP;
  };
  visit(doc, { Map: (_, node, path) => flow(node, path), Seq: (_, node, path) => flow(node, path) });
  return doc.toString({ lineWidth: 0 }).trimEnd().split('\n').map((l) => `  ${l}`);
}

/** The whole text: a header comment, then `tools:` with every tool in name order. */
export function renderTools(header: readonly string[], inferences: readonly ToolInference[]): string {
  const lines = header.map((h) => comment(h, ''));
  const sorted = [...inferences].sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  const body: string[] = [];
  for (const inference of sorted) {
    const [first, ...rest] = inference.notes;
    body.push(comment(`${shown(inference.tool)}: ${first ?? ''}`, '  '), ...rest.map((n) => comment(n, '  ')));
    if (inference.entry) body.push(...entryLines(inference));
  }
  const any = sorted.some((i) => i.entry !== undefined);
  lines.push(any ? 'tools:' : 'tools: {}', ...body);
  return `${lines.join('\n')}\n`;
}
