/**
 * Validates a parsed config against CONFIG_SCHEMA (ajv compiled once, at module load) and turns ajv's errors
 * into plain one-line messages anchored at a config path. The schema's `errorMessage` / `patternErrorMessage`
 * (editor extensions) supply the wording where ajv's own would be cryptic.
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { CONFIG_SCHEMA } from './schema.js';
import { suggestKey } from './hint.js';
import type { Anchor } from './positions.js';
import type { Segment } from './problems.js';

/** A schema violation: where (`path`, which end of it) and what; `prefix` is the path the message names. */
export interface SchemaIssue {
  readonly path: readonly Segment[];
  readonly anchor: Anchor;
  readonly prefix: readonly Segment[];
  readonly message: string;
  /** The ajv keyword that failed (`type`, `required`, …). */
  readonly keyword: string;
}

const ajv = new Ajv2020({ allErrors: true, verbose: true, allowUnionTypes: true, strict: true, strictRequired: false });
ajv.addVocabulary(['errorMessage', 'patternErrorMessage']);
const validateConfig = ajv.compile(CONFIG_SCHEMA);

/** Every way `value` breaks the config schema; empty when it conforms. */
export function validateShape(value: unknown): SchemaIssue[] {
  if (validateConfig(value)) return [];
  const issues: SchemaIssue[] = [];
  for (const error of validateConfig.errors ?? []) {
    const issue = translate(error);
    if (issue) issues.push({ ...issue, keyword: error.keyword });
  }
  return issues;
}

function pathOf(pointer: string): Segment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s)); // array indexes, as the position index has them
}

type SchemaNode = Record<string, unknown>;
const asNode = (v: unknown): SchemaNode => (v !== null && typeof v === 'object' ? (v as SchemaNode) : {});

function translate(error: ErrorObject): Omit<SchemaIssue, 'keyword'> | undefined {
  const { keyword, params } = error;
  // Bookkeeping errors: `if` repeats its branch's errors, `propertyNames` repeats the name's own error,
  // and the branches of a oneOf are summarised by the oneOf error itself.
  if (keyword === 'if' || keyword === 'propertyNames' || /\/oneOf\/\d+\//.test(error.schemaPath)) return undefined;
  const path = pathOf(error.instancePath);
  const parent = asNode(error.parentSchema);
  const data = error.data;

  if (error.propertyName !== undefined) {
    const name = error.propertyName;
    const msg = keyword === 'pattern' && typeof parent.patternErrorMessage === 'string' ? parent.patternErrorMessage : error.message;
    return { path: [...path, name], anchor: 'key', prefix: path, message: `invalid name ${JSON.stringify(name)}: ${msg ?? 'invalid'}` };
  }
  if (keyword === 'additionalProperties') {
    const key = String(params.additionalProperty);
    const hint = suggestKey(key, Object.keys(asNode(parent.properties)));
    const place = hint ? undefined : placement(path, key);
    const suffix = hint ? ` (did you mean "${hint}"?)` : place ? ` (${place})` : '';
    return { path: [...path, key], anchor: 'key', prefix: path, message: `unknown key "${key}"${suffix}` };
  }
  if (keyword === 'not' && Object.keys(asNode(error.schema)).length === 0 && typeof parent.errorMessage === 'string') {
    // A key forbidden by a sibling (e.g. `headers` on a stdio upstream): point at the key itself.
    return { path, anchor: 'key', prefix: path.slice(0, -1), message: parent.errorMessage };
  }
  if (typeof parent.errorMessage === 'string') {
    const anchor: Anchor = data !== null && typeof data === 'object' ? 'node' : 'value';
    return { path, anchor, prefix: path, message: parent.errorMessage };
  }
  if (keyword === 'pattern' && typeof parent.patternErrorMessage === 'string') {
    return { path, anchor: 'value', prefix: path, message: parent.patternErrorMessage };
  }
  return { path, anchor: anchorFor(keyword), prefix: path, message: messageFor(error, parent, data) };
}

// The keys of a tool's entry and of its `extract`, read off the schema, to say where a misplaced key belongs.
const TOOL_NODE = asNode(asNode(asNode(asNode(asNode(asNode(CONFIG_SCHEMA.properties).upstreams).additionalProperties).properties).tools).additionalProperties);
const TOOL_KEYS = new Set(Object.keys(asNode(TOOL_NODE.properties)));
const EXTRACT_KEYS = new Set(Object.keys(asNode(asNode(asNode(TOOL_NODE.properties).extract).properties)));

/** Where a key that is unknown here but known elsewhere belongs (e.g. `delimiter` beside `extract`). */
function placement(path: readonly Segment[], key: string): string | undefined {
  const at = path.map(String);
  const inTool = at.length === 4 && at[0] === 'upstreams' && at[2] === 'tools';
  if (inTool && EXTRACT_KEYS.has(key)) return 'it belongs under `extract`';
  if (at.length === 5 && at[4] === 'extract' && TOOL_KEYS.has(key)) return "it belongs in the tool's entry, beside `extract`";
  if (at.length === 1 && at[0] === 'defaults' && EXTRACT_KEYS.has(key)) return 'extract settings are set per tool, under `extract`';
  if (at.length === 2 && at[0] === 'upstreams' && TOOL_KEYS.has(key)) return 'it belongs in a tool\'s entry under `tools`, or in `defaults`';
  return undefined;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function anchorFor(keyword: string): Anchor {
  return keyword === 'required' || keyword === 'oneOf' || keyword === 'minProperties' ? 'node' : 'value';
}

function messageFor(error: ErrorObject, parent: SchemaNode, data: unknown): string {
  const { keyword, params } = error;
  switch (keyword) {
    case 'required':
      return `missing required key "${String(params.missingProperty)}"`;
    case 'oneOf': {
      const branches = Array.isArray(parent.oneOf) ? parent.oneOf.map(asNode) : [];
      const keys = branches.map((b) => (Array.isArray(b.required) ? String(b.required[0]) : ''));
      if (keys.every((k) => k !== '')) {
        const found = keys.filter((k) => Object.hasOwn(asNode(data), k));
        const list = found.length === 0 ? 'none' : found.join(' and ');
        return `must have exactly one of ${keys.join(', ')} (found ${list})`;
      }
      return error.message ?? 'must match exactly one alternative';
    }
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => String(v)).join(', ')}`;
    case 'type': {
      const types: unknown = params.type;
      const list = Array.isArray(types) ? types : String(types).split(',');
      return `must be ${list.join(' or ')} (found ${jsonType(data)})`;
    }
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : (error.message ?? 'too short');
    case 'minProperties':
      return params.limit === 1 ? 'must not be empty' : (error.message ?? 'too few keys');
    case 'minItems':
      return params.limit === 1 ? 'must have at least one item' : (error.message ?? 'too few items');
    default:
      return error.message ?? `fails "${keyword}"`;
  }
}
