/**
 * The package's version, read once from package.json (which ships beside dist/), for serverInfo-like fields
 * the gateway sends itself and for telemetry's service.version.
 */
import { readFileSync } from 'node:fs';

function read(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const version = typeof pkg === 'object' && pkg !== null ? (pkg as { version?: unknown }).version : undefined;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const PACKAGE_VERSION = read();
