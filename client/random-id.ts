/** The part of Web Crypto the SDK needs (`randomUUID` is missing on insecure browser origins). */
export interface RandomSource {
  readonly randomUUID?: (() => string) | undefined;
  getRandomValues<T extends Uint8Array>(array: T): T;
}

/**
 * A random (v4) UUID. `crypto.randomUUID` exists only in secure contexts: a page served over plain http from a
 * host other than localhost lacks it, so the UUID is then built from `crypto.getRandomValues` (available
 * everywhere) the same way: 122 random bits, version 4, RFC 4122 variant.
 */
export function randomUuid(source: RandomSource = globalThis.crypto): string {
  if (typeof source.randomUUID === 'function') return source.randomUUID();
  const bytes = source.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
