/**
 * Validates a parsed config against CONFIG_SCHEMA (ajv compiled once, at module load) and turns ajv's errors
 * into plain one-line messages anchored at a config path. The schema's `errorMessage` / `patternErrorMessage`
 * (editor extensions) supply the wording where ajv's own would be cryptic.
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { CONFIG_SCHEMA } from './schema.js';
import { flagsProblem } from './flags.js';
import { suggestKey } from '../hint.js';
import { placementHint } from './placement.js';
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
    // A name refused for what it is (a header the gateway sets), not for how it is written.
    if (typeof parent.errorMessage === 'string') return { path: [...path, name], anchor: 'key', prefix: path, message: `${JSON.stringify(name)} ${parent.errorMessage}` };
    const msg = keyword === 'pattern' && typeof parent.patternErrorMessage === 'string' ? parent.patternErrorMessage : error.message;
    return { path: [...path, name], anchor: 'key', prefix: path, message: `invalid name ${JSON.stringify(name)}: ${msg ?? 'invalid'}` };
  }
  if (keyword === 'additionalProperties') {
    const key = String(params.additionalProperty);
    // A key the schema knows elsewhere was misplaced, not misspelled: say where it goes.
    const placed = placementHint(key, path);
    const typo = placed === undefined ? suggestKey(key, Object.keys(asNode(parent.properties))) : undefined;
    const suffix = placed !== undefined ? ` (${placed})` : typo !== undefined ? ` (did you mean "${typo}"?)` : '';
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
    // Regex flags get a message about the flags written (only a g or y is told about `all`).
    const flags = path.at(-2) === 'extract' && path.at(-1) === 'flags' && typeof data === 'string' ? flagsProblem(data) : undefined;
    return { path, anchor: 'value', prefix: path, message: flags ?? parent.patternErrorMessage };
  }
  return { path, anchor: anchorFor(keyword), prefix: path, message: messageFor(error, parent, data) };
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
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => String(v));
      const hint = typeof data === 'string' ? suggestKey(data, allowed) : undefined;
      return `must be one of ${allowed.join(', ')}${hint === undefined ? '' : ` (did you mean "${hint}"?)`}`;
    }
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
