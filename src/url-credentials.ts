/**
 * What is shown of an upstream's address (the operator console, `check --probe`): never the user and password a
 * URL may carry. Values from `${VAR}` are scrubbed by the log's redactor (src/log.ts); a literal password in a URL
 * is not a configured secret, so it is taken out here.
 */

/** A URL without the user and password it may carry: what is shown of an upstream's address (console, probe). */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
