/**
 * The engine ajv runs a configured schema's `pattern` and `patternProperties` with. ajv's default is a
 * JavaScript RegExp, which backtracks: `"pattern": "^(a+)+$"` held the event loop 1.7 s on 27 characters of an
 * upstream's answer, doubling with each character more. A pattern RE2 can run with JavaScript's meaning
 * (./extract/pattern.ts) runs on RE2 here, in time linear in the text; others keep the RegExp.
 */
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { compilePattern } from './extract/pattern.js';

function schemaPattern(source: string, flags: string): RegExpLike {
  const compiled = compilePattern(source, flags, false);
  const re2 = compiled.re2;
  if (re2 === undefined || compiled.lineAnchors) return compiled.js;
  // ajv keys the compiled patterns of a schema by toString(): one per source and flags.
  const linear: RegExpLike & { toString(): string } = { test: (text: string) => re2.test(text), toString: () => `re2:/${source}/${flags}` };
  return linear;
}

export const schemaRegExp: RegExpEngine = Object.assign(schemaPattern, { code: 'schemaRegExp' });
