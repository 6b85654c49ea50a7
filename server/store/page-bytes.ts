import type { StoredPage } from './event-store.ts';

/**
 * The byte bound of a page read (`EventStore.readStoredPage`'s `maxBytes`), the one rule both engines apply: bodies
 * are kept in seq order while they take at most `maxBytes` together, and the first is always kept (a page holds at
 * least one event, however large). Returns how many of `sizes` are kept.
 */
export function keptWithinBytes(sizes: readonly number[], maxBytes: number | undefined): number {
  if (maxBytes === undefined) return sizes.length;
  let bytes = 0;
  for (let index = 0; index < sizes.length; index++) {
    bytes += sizes[index]!;
    if (index > 0 && bytes > maxBytes) return index;
  }
  return sizes.length;
}

/** `page` cut to `maxBytes` of bodies (see `keptWithinBytes`), `truncated` when events were left out. */
export function pageWithinBytes(page: StoredPage, maxBytes: number | undefined): StoredPage {
  const keep = keptWithinBytes(
    page.bodies.map((body) => body.length),
    maxBytes,
  );
  if (keep === page.bodies.length) return page;
  return { ...page, bodies: page.bodies.slice(0, keep), times: page.times.slice(0, keep), truncated: true };
}
