import { createHash } from 'node:crypto';

/** Longest id (in UTF-8 bytes) kept readable in its directory name: 2 hex digits a byte, ≤ 201 characters a name. */
const MAX_HEX_ID_BYTES = 100;

/**
 * The directory name of a session: `x` and the hex of its id's UTF-8 bytes (ids of up to 100 bytes), else `h` and
 * the SHA-256 of those bytes in hex (the id itself is then read from the index). Only `[0-9a-f]`: safe on every file
 * system, case-insensitive ones included, whatever the id holds (`/`, `..`, spaces, emoji); at most 201 characters.
 */
export function sessionDirName(sessionId: string): string {
  const bytes = Buffer.from(sessionId, 'utf8');
  if (bytes.byteLength <= MAX_HEX_ID_BYTES) return `x${bytes.toString('hex')}`;
  return `h${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The id a `x…` directory name spells; undefined for a hashed (`h…`) name or a name this backend did not make. */
export function sessionIdOfDirName(name: string): string | undefined {
  if (!/^x(?:[0-9a-f]{2})+$/.test(name)) return undefined;
  return Buffer.from(name.slice(1), 'hex').toString('utf8');
}

/** Whether `name` is a directory name of a session (`x…` or `h…`). */
export function isSessionDirName(name: string): boolean {
  return /^x(?:[0-9a-f]{2})+$/.test(name) || /^h[0-9a-f]{64}$/.test(name);
}

/** A new segment's file name: its first seq (zero-padded, so names sort by seq) and a random tag (names are never reused). */
export function segmentFileName(firstSeq: number, tag: string): string {
  return `s${String(firstSeq).padStart(16, '0')}-${tag}.seg`;
}

/** The name of the index file, the commit point of a session's archive. */
export const INDEX_FILE = 'index';
