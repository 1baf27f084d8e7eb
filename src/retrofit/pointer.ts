/** RFC 6901 JSON pointers: reading a value (for `select`) and resolving local `$ref`s (for coercion). */
import type { Json } from '../json.js';

function unescape(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value at `pointer` ("" is the whole value), or undefined when the path does not exist. */
export function getPointer(value: Json, pointer: string): Json | undefined {
  if (pointer === '') return value;
  if (!pointer.startsWith('/')) return undefined;
  let current: Json | undefined = value;
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescape(raw);
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, token)) {
      current = current[token];
    } else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

/** Resolve a `$ref` of the form `#` or `#/...` against a root document; other refs are not local. */
export function resolveLocalRef(root: Json, ref: string): Json | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  return getPointer(root, pointer);
}
