/**
 * Which client profile (`clients:`) a client gets: the first whose `match` holds for the client's name
 * (a glob over `clientInfo.name`, case-sensitive, like tool keys), version (a semver range over
 * `clientInfo.version`; a version that is not semver matches no range) and revision (one of a list). No
 * match: no profile, the behaviour without `clients:`. Built once per config generation; matching is a few
 * string tests, done once per session (the session remembers it) or per request for 2026-07-28 clients,
 * whose requests each carry their client info.
 */
import semver from 'semver';
import type { ClientIdentity, ClientProfile } from '../retrofit/profile.js';
import { isNeutral } from '../retrofit/profile.js';
import { REVISIONS } from '../protocol/era.js';
import { globProblem, nameGlob } from './match.js';

/** One `clients:` entry as configured. */
export interface ClientProfileConfig extends ClientProfile {
  readonly match: {
    /** Glob over clientInfo.name. */
    readonly name?: string;
    /** Semver range over clientInfo.version. */
    readonly version?: string;
    /** Protocol revisions the profile applies to. */
    readonly revision?: readonly string[];
  };
}

/** Picks the profile of a client. */
export interface ProfileMatcher {
  /** The matched profile, or undefined (no profile, or one that changes nothing). */
  match(client: ClientIdentity): ClientProfile | undefined;
  /** The profile named `name` (`try --client`), whatever it matches. */
  byName(name: string): ClientProfile | undefined;
}

/** What is wrong with one entry's `match`, as [key path (dotted below `match`), message] pairs. */
export function matchProblems(entry: ClientProfileConfig['match']): [string, string][] {
  const out: [string, string][] = [];
  if (entry.name !== undefined) {
    const problem = globProblem(entry.name);
    if (problem) out.push(['name', problem]);
  }
  for (const [i, revision] of (entry.revision ?? []).entries()) {
    if (!(REVISIONS as readonly string[]).includes(revision)) out.push([`revision.${i}`, `not a protocol revision the gateway knows: ${JSON.stringify(revision)} (known: ${REVISIONS.join(', ')})`]);
  }
  if (entry.version !== undefined && semver.validRange(entry.version) === null) out.push(['version', `not a semver range: ${JSON.stringify(entry.version)} (e.g. ">=1.2 <2", "^0.9")`]);
  return out;
}

export function createProfileMatcher(profiles: readonly ClientProfileConfig[]): ProfileMatcher | undefined {
  if (profiles.length === 0) return undefined;
  const compiled = profiles.map((p) => {
    let name: (s: string) => boolean = () => true;
    if (p.match.name !== undefined) {
      try {
        name = nameGlob(p.match.name);
      } catch {
        // reported by the loader (matchProblems): never matches
        name = () => false;
      }
    }
    const range = p.match.version;
    const revisions = p.match.revision ? new Set(p.match.revision) : undefined;
    const profile: ClientProfile = { name: p.name, outputSchema: p.outputSchema, schemaDialect: p.schemaDialect, textFallback: p.textFallback, inputSchemaRoot: p.inputSchemaRoot };
    const test = (c: ClientIdentity): boolean => {
      if (p.match.name !== undefined && (c.name === undefined || !name(c.name))) return false;
      if (range !== undefined && (c.version === undefined || semver.valid(c.version) === null || !semver.satisfies(c.version, range, { includePrerelease: true }))) return false;
      return !revisions || (c.revision !== undefined && revisions.has(c.revision));
    };
    return { profile, test };
  });
  return {
    match(client) {
      const found = compiled.find((c) => c.test(client))?.profile;
      return found && !isNeutral(found) ? found : undefined;
    },
    byName: (name) => compiled.find((c) => c.profile.name === name)?.profile,
  };
}
