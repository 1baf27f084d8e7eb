/**
 * `${VAR}` / `${VAR:-default}` expansion in config string values (never keys).
 *
 * - `${VAR}`: the variable's value; unset → a problem (an empty value counts as set).
 * - `${VAR:-default}`: the default when VAR is unset or empty (as in sh); the default is literal text.
 * - `$${VAR}`: a literal `${VAR}` (the escape for regexes or templates that need the characters).
 * - A lone `$` not followed by `{` stays as it is. A `${` that does not form one of the above is a problem,
 *   so a typo never silently reaches an upstream.
 */

/** Variables to expand from; `process.env` by default. */
export type Env = Readonly<Record<string, string | undefined>>;

export interface Expansion {
  /** The string with every expression replaced (unset variables replaced by ""). */
  readonly value: string;
  /** True when at least one `${…}` expression was replaced. */
  readonly expanded: boolean;
  /** Values taken from the environment (not defaults): secrets the logger must never print. */
  readonly fromEnv: readonly string[];
  /** One message per unset variable or malformed expression. */
  readonly problems: readonly string[];
}

const EXPRESSION = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/;

/** Expands every expression in `input` against `env`. */
export function expandString(input: string, env: Env): Expansion {
  if (!input.includes('$')) return { value: input, expanded: false, fromEnv: [], problems: [] };
  let out = '';
  let expanded = false;
  const fromEnv: string[] = [];
  const problems: string[] = [];
  let i = 0;
  while (i < input.length) {
    const dollar = input.indexOf('$', i);
    if (dollar < 0) {
      out += input.slice(i);
      break;
    }
    out += input.slice(i, dollar);
    const rest = input.slice(dollar);
    if (rest.startsWith('$${')) {
      out += '${';
      i = dollar + 3;
      continue;
    }
    if (!rest.startsWith('${')) {
      out += '$';
      i = dollar + 1;
      continue;
    }
    const m = EXPRESSION.exec(rest);
    if (!m) {
      const end = rest.indexOf('}');
      const shown = end < 0 ? rest : rest.slice(0, end + 1);
      problems.push(`malformed expression ${JSON.stringify(shown)} (use \${VAR} or \${VAR:-default}; $\${ for a literal \${)`);
      i = end < 0 ? input.length : dollar + end + 1;
      continue;
    }
    const [whole, name = '', fallback] = m;
    const current = env[name];
    expanded = true;
    if (fallback !== undefined) {
      if (current !== undefined && current !== '') {
        out += current;
        fromEnv.push(current);
      } else out += fallback;
    } else if (current === undefined) {
      problems.push(`environment variable ${name} is not set`);
    } else {
      out += current;
      fromEnv.push(current);
    }
    i = dollar + whole.length;
  }
  return { value: out, expanded, fromEnv, problems };
}

/** `value` written so that expansion reads it back unchanged: every `${` becomes `$${`. */
export function literalText(value: string): string {
  // A function, not a replacement string: in one, `$$` stands for a single `$`.
  return value.includes('${') ? value.replaceAll('${', () => '$${') : value;
}

/**
 * A JSON value about to be written into a config file, with every string value made literal (keys are never
 * expanded). Text learned from an upstream (an `enum` of what a tool returned, a captured pattern) must not
 * become a `${VAR}` lookup that publishes the gateway's environment to every client.
 */
export function literalValue(value: unknown): unknown {
  if (typeof value === 'string') return literalText(value);
  if (Array.isArray(value)) return value.map(literalValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: literalValue(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}
