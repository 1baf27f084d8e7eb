/**
 * The tools/call pipeline (also used for tasks/result of tool-call tasks): leave errors and non-final
 * results alone; validate upstream structuredContent or extract candidates from text; select → wrap →
 * coerce → validate; then either serve the value (projected for the client's era) or the failure.
 */
import { nestsDeeperThan, type Json, type JsonObject, type JsonSchema } from '../json.js';
import { MAX_DEPTH } from '../jsonrpc/strict.js';
import type { CallOutcome } from './outcome.js';
import type { CompiledOutput, CompiledTool } from './compiled.js';
import { coerce } from './coerce.js';
import type { BranchCheck } from './branch-checks.js';
import { blocksOf, textsOf } from './content.js';
import { candidates, type Candidate } from './extract/index.js';
import { errorResult, failureText, summarize } from './outcome.js';
import { getPointer } from './pointer.js';
import { projectionFor, projectResult } from './project.js';
import { check as validateValue, type Validator } from './validate.js';
import { RESULT_KEY } from './wrap.js';
import { eraOf } from '../protocol/era.js';

/**
 * True for results the engine never retrofits: errors, `input_required`, task creation. (An error's own
 * structuredContent is still projected for the client: engine.ts, projectErrorResult.)
 */
export function isNonFinal(result: JsonObject): boolean {
  if (result.isError === true) return true;
  if (result.resultType !== undefined && result.resultType !== 'complete') return true;
  return 'task' in result && !('content' in result);
}

type Checked = { readonly ok: true; readonly value: Json } | { readonly ok: false; readonly reasons: string[] };

/**
 * How one value is checked: the validator, whether it removes properties (and then the validator that
 * confirms what is left, CompiledOutput.confirm), and whether to coerce.
 */
interface Checking {
  readonly validate: Validator;
  readonly removes: boolean;
  readonly confirm: Validator | undefined;
  readonly coerce: boolean;
  /** The schema's branch checks, which coercion under anyOf/oneOf uses. */
  readonly branches?: BranchCheck | undefined;
}

/** Validate with `how`; a value left by a removing validator must also pass the schema as written. */
function verify(how: Checking, value: Json): ReturnType<typeof validateValue> {
  const verdict = validateValue(how.validate, value);
  return verdict.ok && how.removes && how.confirm ? validateValue(how.confirm, value) : verdict;
}

/** Where a failure's extra reasons come from: a candidate, whose `notes` are read only when it fails. */
interface Noted {
  readonly notes?: readonly string[] | undefined;
}

/** A failure's reasons: the validator's, then the reading's notes (read here, only now), then `more`. */
function explained(reasons: readonly string[], noted: Noted | undefined, more: readonly string[] = []): string[] {
  return [...reasons, ...(noted?.notes ?? []), ...more];
}

/**
 * select → wrap → validate, and when that fails and coercion is on, coerce → validate again. A validator
 * that removes properties works on a copy: the value may be a part of a reading that later candidates
 * reuse, or the upstream's own structuredContent, which is still being forwarded. `noted`'s notes (an
 * inexact-number pass over the text) are read only for a failure's reasons.
 */
function check(value: Json, tool: CompiledTool, how: Checking, schema: JsonSchema, noted?: Noted, coerceFirst = false): Checked {
  let current: Json | undefined = value;
  const { select, wrap } = tool.extract;
  if (select !== undefined) {
    current = getPointer(current, select);
    if (current === undefined) return { ok: false, reasons: [`select ${select}: no such value`] };
  }
  if (how.removes) current = structuredClone(current);
  if (wrap !== undefined) current = { [wrap]: current };
  // Readings made of strings (cells, items, groups) are typed by coercion whenever the schema wants numbers:
  // coerce them at once instead of collecting a failure for every cell first.
  if (coerceFirst && how.coerce) {
    const coerceNotes: string[] = [];
    const coerced = coerce(current, schema, coerceNotes, how.branches);
    const verdict = verify(how, coerced);
    return verdict.ok ? { ok: true, value: coerced } : { ok: false, reasons: explained(verdict.reasons, noted, coerceNotes) };
  }
  // Validate first: most values need no coercion, and coercing copies the whole value (the bulk of a 100 KB
  // retrofit's cost). Only a value that fails is coerced and checked again.
  const verdict = verify(how, current);
  if (verdict.ok) return { ok: true, value: current };
  if (!how.coerce) return { ok: false, reasons: explained(verdict.reasons, noted) };
  const coerceNotes: string[] = [];
  const coerced = coerce(current, schema, coerceNotes, how.branches);
  if (coerced === current) return { ok: false, reasons: explained(verdict.reasons, noted) };
  const second = verify(how, coerced);
  return second.ok ? { ok: true, value: coerced } : { ok: false, reasons: explained(second.reasons, noted, coerceNotes) };
}

function textChecking(tool: CompiledTool, output: CompiledOutput): Checking {
  return { validate: output.validate, removes: output.removeText !== false, confirm: output.confirm, coerce: tool.coerce, branches: output.branches };
}

/** Readings whose values are all strings taken from the text. */
const STRING_READINGS: ReadonlySet<string> = new Set(['table', 'csv', 'list', 'regex']);

const NOTHING_FOUND = {
  auto: 'no JSON value found in the text content',
  json: 'the text content is not one JSON value',
  yaml: 'the text content is neither YAML nor "key: value" lines',
  regex: 'the pattern does not match the text content',
  table: 'the text content holds no pipe table (a header row, then a delimiter row like | --- |)',
  csv: 'the text content is not CSV with a header row',
  list: 'the text content holds no Markdown list',
} as const;

/**
 * The deepest value served: MAX_DEPTH less the levels around it in the message (message, result,
 * structuredContent, a wrapper).
 */
const VALUE_DEPTH = MAX_DEPTH - 4;

type Found =
  | { readonly ok: true; readonly value: Json; readonly format: string }
  | { readonly ok: false; readonly parsed: boolean; readonly reasons: string[]; readonly format?: string };

function fromText(result: JsonObject, tool: CompiledTool, output: CompiledOutput): Found {
  const texts = textsOf(result);
  let first: { candidate: Candidate; reasons: string[] } | undefined;
  const notes: string[] = [];
  const how = textChecking(tool, output);
  // A value nested deeper than VALUE_DEPTH takes two characters a level: only a text that long can hold one.
  const mayNest = texts.reduce((n, t) => n + t.length, 0) > 2 * VALUE_DEPTH;
  for (const candidate of candidates(texts, tool, output.schema, blocksOf(result).length === 0, notes)) {
    let checked: Checked;
    try {
      // No message the gateway sends nests deeper than it accepts (and nothing recursive could write it).
      if (mayNest && nestsDeeperThan(candidate.value, VALUE_DEPTH)) checked = { ok: false, reasons: [`${candidate.format}: the value nests deeper than ${VALUE_DEPTH} levels`] };
      else checked = check(candidate.value, tool, how, output.schema, candidate, STRING_READINGS.has(candidate.format));
    } catch (err) {
      // Recursion over a value nested deeper than the stack (an upstream's `[[[[…]]]]`): a reading that
      // cannot be checked is a failed reading, not an engine failure that would pass the result through.
      if (!(err instanceof RangeError)) throw err;
      checked = { ok: false, reasons: [`${candidate.format}: the value is nested too deeply to check`] };
    }
    if (checked.ok) return { ok: true, value: checked.value, format: candidate.format };
    first ??= { candidate, reasons: checked.reasons };
  }
  if (first) return { ok: false, parsed: true, format: first.candidate.format, reasons: first.reasons };
  const why = texts.length === 0 ? 'the result has no text content' : NOTHING_FOUND[tool.extract.format];
  return { ok: false, parsed: false, reasons: notes.length > 0 ? notes : [why] };
}

/** `{result: X}` and nothing else. */
function wrappedInner(value: Json): { readonly inner: Json } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === RESULT_KEY ? { inner: value[RESULT_KEY] as Json } : undefined;
}

/**
 * Upstream structuredContent, validated as is. A modern upstream serving a pre-2026 session has already
 * wrapped a non-object value as {result: V} (the SDK convention); V is then what the schema describes. For
 * those sessions V is tried first, since a loose schema (any object) would also accept {result: V} itself
 * and the value would be wrapped twice.
 */
function fromNative(value: Json, tool: CompiledTool, output: CompiledOutput, revision: string): Found {
  const asIs: CompiledTool = { ...tool, extract: { format: 'json' } };
  const how: Checking = { validate: output.validateNative, removes: output.removeNative !== false, confirm: output.confirm, coerce: false };
  const wrapped = output.needsWrap ? wrappedInner(value) : undefined;
  const unwrapFirst = wrapped !== undefined && eraOf(revision) !== 'modern';
  if (unwrapFirst) {
    const inner = check(wrapped.inner, asIs, how, output.schema);
    if (inner.ok) return { ok: true, value: inner.value, format: 'native' };
  }
  const checked = check(value, asIs, how, output.schema);
  if (checked.ok) return { ok: true, value: checked.value, format: 'native' };
  if (wrapped !== undefined && !unwrapFirst) {
    const inner = check(wrapped.inner, asIs, how, output.schema);
    if (inner.ok) return { ok: true, value: inner.value, format: 'native' };
  }
  return { ok: false, parsed: true, format: 'native', reasons: checked.reasons };
}

/**
 * An error result of a tool whose configured schema the client was shown. It is never retrofitted, but the
 * structuredContent it may carry reaches the client only in a form that cannot break it: the v1 SDK client
 * validates an error's structuredContent against the listed schema too, and the client was shown ours. So
 * the value is served (projected for the client's era, like any other) when it matches the configured
 * schema; otherwise it leaves structuredContent, and its JSON stays readable in text.
 */
export function projectErrorResult(result: JsonObject, tool: CompiledTool, output: CompiledOutput, revision: string): JsonObject {
  if (result.structuredContent === undefined) return result;
  const value = result.structuredContent as Json;
  const projection = projectionFor(revision, !output.needsWrap, tool.legacyRoots);
  // `confirm` exists whenever `validate` would remove properties (in place) from what it checks.
  const fits = projection !== 'drop' && validateValue(output.confirm ?? output.validate, value).ok;
  return projectResult(result, value, fits ? projection : 'drop');
}

/** Retrofit one final result of a tool with a configured outputSchema. */
export function retrofitResult(
  result: JsonObject,
  toolName: string,
  tool: CompiledTool,
  output: CompiledOutput,
  revision: string,
): { result: JsonObject; outcome: CallOutcome } {
  const native = result.structuredContent !== undefined;
  let found: Found;
  if (native) found = fromNative(result.structuredContent as Json, tool, output, revision);
  else found = fromText(result, tool, output);

  if (found.ok) {
    const projection = projectionFor(revision, !output.needsWrap, tool.legacyRoots);
    const outcome: CallOutcome = native ? { tool: toolName, outcome: 'native' } : { tool: toolName, outcome: 'extracted', format: found.format };
    return { result: projectResult(result, found.value, projection), outcome };
  }
  const kind = found.parsed ? 'invalid' : 'unparseable';
  const reasons = summarize(found.reasons);
  // The failure as `onInvalid: error` serves it. A tool whose failures pass through runs in shadow, and the
  // engine's entry (engine.ts) serves shadowed tools the upstream's result: this is never what they get.
  return {
    result: errorResult(result, failureText(toolName, kind, reasons)),
    outcome: { tool: toolName, outcome: kind, reasons, ...(found.format !== undefined && { format: found.format }) },
  };
}
