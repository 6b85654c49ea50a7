import { createHash } from 'node:crypto';
import type { ValidatedDraft } from './event-store.ts';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Fingerprint of a batch's content (types, data, surface ops, provenance), independent of object key order:
 * 128 bits of SHA-256 over a canonical JSON text, base64url. Stored with an idempotency key so that a key reused
 * for a different batch is reported (`idempotency-mismatch`) instead of silently acknowledged.
 */
export function batchDigest(events: readonly ValidatedDraft[]): string {
  const text = canonical(
    events.map((event) => [event.type, event.data, event.surfaceOp ?? null, event.sourceEventSeqs ?? null]),
  );
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}
