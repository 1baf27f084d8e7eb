/**
 * The recorder's files: `DIR/<upstream>/<tool dir>/<timestamp>-<seq>.json`, each one Recording. Tool names
 * can hold anything (slashes, dots, `..`, non-ASCII, names differing only in case), so the tool's directory
 * name is an injective encoding that is safe on every file system; the exact name is inside the file.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../json.js';

/** One recorded tools/call result: the JSON of one file. */
export interface Recording {
  readonly upstream: string;
  /** The exact tool name. */
  readonly tool: string;
  /** When the result was offered (ISO 8601, UTC). */
  readonly recordedAt: string;
  /** The protocol revision governing the request, when the caller knew it. */
  readonly protocolRevision?: string;
  /** The names of the call's arguments (their values are never recorded). */
  readonly argumentNames?: readonly string[];
  /** The upstream's CallToolResult as received, before any retrofit; secrets and argument values scrubbed. */
  readonly result: JsonObject;
}

/** Encoded names longer than this are cut and suffixed with a longer hash (file names stop at 255 bytes). */
const MAX_ENCODED = 120;
const KEPT_WHEN_LONG = 100;

function hash(text: string, length: number): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, length);
}

/**
 * The directory name of a tool: its UTF-8 bytes with every byte outside `[A-Za-z0-9_-]` written `%xx`
 * (lower-case hex), so `.`, `..`, `/` and `%` itself cannot survive. Names with an upper-case letter get
 * `~` and 8 hex digits of their SHA-256, so `Get` and `get` stay apart on case-insensitive file systems
 * (`~` never appears otherwise: it is encoded). Over 120 characters: the first 100, `~`, 16 hex digits.
 */
export function toolDirName(tool: string): string {
  let encoded = '';
  for (const byte of Buffer.from(tool, 'utf8')) {
    const safe = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x5f || byte === 0x2d;
    encoded += safe ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`;
  }
  if (encoded.length > MAX_ENCODED) return `${encoded.slice(0, KEPT_WHEN_LONG)}~${hash(tool, 16)}`;
  // The empty name gets a hash too: a directory needs a name.
  return /[A-Z]/.test(tool) || encoded === '' ? `${encoded}~${hash(tool, 8)}` : encoded;
}

/** `20261130T190212345Z-000042.json`: sorts by time, then by the recorder's sequence number. */
export function recordingFileName(recordedAt: number, seq: number): string {
  const stamp = new Date(recordedAt).toISOString().replace(/[-:.]/g, '');
  return `${stamp}-${String(seq).padStart(6, '0')}.json`;
}

const FILE_NAME = /^\d{8}T\d{9}Z-\d{6,}\.json$/;

/** True for names recordingFileName makes (not for temporary files or whatever else is in the directory). */
export function isRecordingFileName(name: string): boolean {
  return FILE_NAME.test(name);
}
