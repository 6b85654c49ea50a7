/**
 * The byte bound of a page read (`EventStore.readStoredPage`'s `maxBytes`), the one rule every engine applies (the
 * memory engine, the Redis raw reader's parse in redis/resp-page.ts, and the same rule in Lua in
 * redis/redis-bounded-read-scripts.ts): entries are kept in seq order while their sizes take at most `maxBytes`
 * together, and the first is always kept (a page holds at least one event, however large).
 *
 * True when the entry at `index` (of `size` bytes) ends the page: it is not the first, and it would take the
 * `bytes` the page holds so far past `maxBytes`. Always false without `maxBytes`.
 */
export function endsPage(index: number, bytes: number, size: number, maxBytes: number | undefined): boolean {
  return maxBytes !== undefined && index > 0 && bytes + size > maxBytes;
}
