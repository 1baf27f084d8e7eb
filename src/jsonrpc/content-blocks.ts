/**
 * What the SDK clients' ContentBlock schema requires of one block of a tools/call result (v1
 * `@modelcontextprotocol/sdk` types.ts, and the v2 client's 2025-11-25 and 2026-07-28 wire schemas alike): a
 * union of five block types, each an object whose required fields are typed, and whose optional ones are typed
 * when present. A block that none of them takes fails the whole result, and the strict client throws (./strict.ts
 * toolResultProblem answers such a result with an error the client can read instead).
 *
 * Runs on every block of every tools/call answer of a gateway-held session: property reads and, for base64 data,
 * one native scan; nothing allocated. Unknown keys are the schemas' concern no more than ours (they strip them).
 */
import { isJsonObject } from '../json.js';

/** Why a content block is one no SDK client takes, or undefined. */
export function contentBlockProblem(block: Record<string, unknown>): string | undefined {
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') return "a text block's text must be a string";
      break;
    case 'image':
    case 'audio':
      if (typeof block.mimeType !== 'string' || typeof block.data !== 'string' || !isBase64(block.data)) return `an ${block.type} block must have base64 data and a string mimeType`;
      break;
    case 'resource': {
      const problem = resourceProblem(block.resource);
      if (problem !== undefined) return problem;
      break;
    }
    case 'resource_link': {
      const problem = resourceLinkProblem(block);
      if (problem !== undefined) return problem;
      break;
    }
    default:
      return "a content block's type must be text, image, audio, resource or resource_link";
  }
  if (block.annotations !== undefined && !annotationsValid(block.annotations)) return "a content block's annotations must be an object of audience, priority and lastModified";
  // z.record on the typed blocks, z.looseObject on resource_link: an object either way.
  if (block._meta !== undefined && !isJsonObject(block._meta)) return "a content block's _meta must be an object";
  return undefined;
}

/** An embedded resource: a uri, and a text or a base64 blob (TextResourceContents | BlobResourceContents). */
function resourceProblem(resource: unknown): string | undefined {
  const problem = "a resource block's resource must have a string uri and a string text or base64 blob";
  if (!isJsonObject(resource) || typeof resource.uri !== 'string') return problem;
  if (typeof resource.text !== 'string' && !(typeof resource.blob === 'string' && isBase64(resource.blob))) return problem;
  if (!optional(resource.mimeType, 'string') || (resource._meta !== undefined && !isJsonObject(resource._meta))) return problem;
  return undefined;
}

/** A resource link: a Resource (uri, name; the rest optional and typed) with its type. */
function resourceLinkProblem(block: Record<string, unknown>): string | undefined {
  const { uri, name, title, description, mimeType, size, icons } = block;
  if (typeof uri !== 'string' || typeof name !== 'string') return 'a resource_link block must have a string uri and name';
  if (!optional(title, 'string') || !optional(description, 'string') || !optional(mimeType, 'string') || !optional(size, 'number') || (icons !== undefined && !iconsValid(icons))) {
    return "a resource_link block's title, description and mimeType must be strings, its size a number, its icons icons";
  }
  return undefined;
}

function optional(value: unknown, type: 'string' | 'number'): boolean {
  return value === undefined || typeof value === type;
}

/** Icon[]: each with a string src; mimeType a string, sizes strings, theme light or dark, when present. */
function iconsValid(icons: unknown): boolean {
  if (!Array.isArray(icons)) return false;
  for (const icon of icons as unknown[]) {
    if (!isJsonObject(icon) || typeof icon.src !== 'string' || !optional(icon.mimeType, 'string')) return false;
    if (icon.theme !== undefined && icon.theme !== 'light' && icon.theme !== 'dark') return false;
    if (icon.sizes !== undefined && !strings(icon.sizes)) return false;
  }
  return true;
}

function strings(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value as unknown[]) if (typeof item !== 'string') return false;
  return true;
}

/** Annotations: audience of user/assistant, priority 0 to 1, lastModified an ISO 8601 date-time with offset. */
function annotationsValid(annotations: unknown): boolean {
  if (!isJsonObject(annotations)) return false;
  const { audience, priority, lastModified } = annotations;
  if (priority !== undefined && !(typeof priority === 'number' && priority >= 0 && priority <= 1)) return false;
  if (lastModified !== undefined && !(typeof lastModified === 'string' && DATE_TIME.test(lastModified))) return false;
  if (audience === undefined) return true;
  if (!Array.isArray(audience)) return false;
  for (const role of audience as unknown[]) if (role !== 'user' && role !== 'assistant') return false;
  return true;
}

// zod's iso.datetime({ offset: true }), as the SDKs' AnnotationsSchema reads lastModified: a real calendar date,
// seconds required, fractions optional, `Z` or a ±hh:mm offset.
const DATE =
  '(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))';
const DATE_TIME = new RegExp(`^${DATE}T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d))$`);

/** A character outside the base64 alphabet and its padding (one native scan, no backtracking: any length). */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
const PAD = 0x3d;

/**
 * True when `atob` (the SDKs' Base64Schema) decodes `s`: the WHATWG forgiving-base64 rules. The usual data (no
 * white space) is judged by one native scan and the place of its padding; the rest one character at a time.
 */
export function isBase64(s: string): boolean {
  if (NOT_BASE64.test(s)) return forgivingBase64(s);
  const n = s.length;
  const pad = s.indexOf('=');
  if (pad === -1) return n % 4 !== 1;
  // `=` only as the last one or two characters of a length that is a multiple of 4.
  return n % 4 === 0 && (pad === n - 1 || (pad === n - 2 && s.charCodeAt(n - 1) === PAD));
}

function forgivingBase64(s: string): boolean {
  let n = 0;
  let pads = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // ASCII white space is removed before decoding.
    if (c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20) continue;
    n++;
    if (c === PAD) pads++;
    else if (pads > 0 || !isBase64Char(c)) return false;
  }
  return pads === 0 ? n % 4 !== 1 : pads <= 2 && n % 4 === 0;
}

function isBase64Char(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
}
