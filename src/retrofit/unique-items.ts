/**
 * `uniqueItems` in linear time. ajv compares every pair of an array's items when they are not all scalars
 * (its deep equality), so a 230 KB upstream answer of 15,000 small objects held the event loop 5.5 s, and a
 * large one on the offload worker (no deadline) never finished, every other large answer waiting behind it.
 * Here each item becomes a canonical JSON key (object keys sorted: JSON Schema equality ignores their order),
 * and the keys go into one map: the same verdict, and the same pair ajv names, in one pass.
 */
import type { Ajv, FuncKeywordDefinition } from 'ajv';

/** `value` as a string equal for exactly the values JSON Schema calls equal (JSON data: no NaN, no undefined). */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record).sort().map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`).join(',')}}`;
}

/** The pair ajv reports: the last item equal to an earlier one, and the nearest such earlier one. */
function duplicate(items: readonly unknown[]): { i: number; j: number } | undefined {
  const last = new Map<string, number>();
  let found: { i: number; j: number } | undefined;
  items.forEach((item, i) => {
    const key = canonical(item);
    const j = last.get(key);
    if (j !== undefined) found = { i, j };
    last.set(key, i);
  });
  return found;
}

const validate: FuncKeywordDefinition['validate'] & { errors?: unknown[] } = function uniqueItems(schema: unknown, data: unknown): boolean {
  if (schema !== true || !Array.isArray(data) || data.length < 2) return true;
  const pair = duplicate(data);
  if (!pair) return true;
  validate.errors = [{ keyword: 'uniqueItems', params: pair, message: `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)` }];
  return false;
};

/** Replace ajv's `uniqueItems` on `ajv` with the linear one. */
export function linearUniqueItems(ajv: Ajv): void {
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate });
}
